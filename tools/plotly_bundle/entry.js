'use strict';
// The trace types the figure builders draw (tests/core/test_page_weight.py checks it): plotly.js's
// core carries scatter; bar and heatmap are registered here. Add a trace here before a figure uses it.
var Plotly = require('plotly.js/lib/core');

Plotly.register([require('plotly.js/lib/bar'), require('plotly.js/lib/heatmap')]);

module.exports = Plotly;
