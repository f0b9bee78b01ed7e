// Plotly's own words (mode bar, hints; the keys are plotly.js 3's English) in the page's language,
// from Django's JavaScript catalogue.
// Pages pass `locale: plotlyLocale()` in each figure's config.
function plotlyLocale() {
  "use strict";
  const name = document.documentElement.lang || "en";
  // English is Plotly's own locale: registering "en" with only the separators would replace its
  // whole format (day and month names too) and every figure would fail to draw.
  if (!plotlyLocale.done && name.split("-")[0] !== "en") {
    Plotly.register({
      moduleType: "locale", name: name,
      dictionary: {
        "Autoscale": gettext("Autoscale"),
        "Box Select": gettext("Box Select"),
        "Compare data on hover": gettext("Compare data on hover"),
        "Double-click on legend to isolate one trace": gettext("Double-click on legend to isolate one trace"),
        "Double-click to zoom back out": gettext("Double-click to zoom back out"),
        "Download plot": gettext("Download plot"),
        "Download plot as a PNG": gettext("Download plot as a PNG"),
        "Lasso Select": gettext("Lasso Select"),
        "Pan": gettext("Pan"),
        "Produced with Plotly.js": gettext("Produced with Plotly.js"),
        "Reset": gettext("Reset"),
        "Reset axes": gettext("Reset axes"),
        "Share": gettext("Share"),
        "Share chart": gettext("Share chart"),
        "Share chart...": gettext("Share chart..."),
        "Show closest data on hover": gettext("Show closest data on hover"),
        "Sorry, there was a problem downloading your image!": gettext("Sorry, there was a problem downloading your image!"),
        "Toggle Spike Lines": gettext("Toggle Spike Lines"),
        "Toggle show closest data on hover": gettext("Toggle show closest data on hover"),
        "Zoom": gettext("Zoom"),
        "Zoom in": gettext("Zoom in"),
        "Zoom out": gettext("Zoom out"),
        "trace": gettext("trace"),
      },
      // No `format`: a partial one breaks Plotly (it expects every month and day name too), and
      // both languages write numbers alike (1,234.5).
    });
    plotlyLocale.done = true;
  }
  return name;
}
