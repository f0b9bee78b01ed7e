// Draws a page's figures: the JSON of <script id="figures"> ({key: {data, layout}}), each into #fig-<key>.
// Loaded deferred after plotly.js (templates/_figures_script.html), so it runs once the page is parsed.
// The figures on screen are drawn at once; the others one at a time while the browser is idle, or as soon
// as they are scrolled near or a download asks for them. Figures below the fold never hold up the page
// (issue 31: every page <= 1 s; docs/performance.md), and every figure is drawn without scrolling.
// Each plot's height is kept free until it is drawn, so nothing on the page moves when it is.
(function () {
  "use strict";
  const source = document.getElementById("figures");
  if (!source) return;
  const figures = JSON.parse(source.textContent) || {};
  const drawn = {};
  const PLOTLY_DEFAULT_HEIGHT = 450;

  function box(key) {
    return document.getElementById("fig-" + key);
  }

  function draw(key) {
    if (!(key in drawn)) {
      const fig = figures[key];
      drawn[key] = Plotly.newPlot(box(key), fig.data, fig.layout, {
        responsive: true, displaylogo: false, locale: plotlyLocale(),
        toImageButtonOptions: {format: "png", filename: key},
      });
    }
    return drawn[key];
  }

  const keys = Object.keys(figures).filter((key) => box(key));
  keys.forEach((key) => {
    const height = (figures[key].layout || {}).height;
    box(key).style.minHeight = (typeof height === "number" ? height : PLOTLY_DEFAULT_HEIGHT) + "px";
  });
  const onScreen = (key) => box(key).getBoundingClientRect().top < window.innerHeight;
  keys.filter(onScreen).forEach(draw);

  const waiting = keys.filter((key) => !(key in drawn));
  const idle = window.requestIdleCallback
    ? (fn) => window.requestIdleCallback(fn, {timeout: 1000})
    : (fn) => window.setTimeout(fn, 50);
  function next() {
    const key = waiting.shift();
    if (key === undefined) return;
    try {
      draw(key);
    } finally {
      idle(next);  // a figure that fails to draw does not stop the others
    }
  }
  if (waiting.length) {
    if (typeof window.IntersectionObserver === "function") {
      const seen = new IntersectionObserver((entries) => entries.forEach((entry) => {
        if (entry.isIntersecting) {
          seen.unobserve(entry.target);
          draw(entry.target.id.slice("fig-".length));
        }
      }), {rootMargin: "300px 0px"});
      waiting.forEach((key) => seen.observe(box(key)));
    }
    // after the load event, so the page counts as loaded once what is on screen is drawn
    window.addEventListener("load", () => idle(next));
  }

  // Buttons that download a figure (the calibration pages): <button data-download="key" data-format="png|svg">.
  document.querySelectorAll("button[data-download]").forEach((button) => button.addEventListener("click", () => {
    const key = button.dataset.download;
    Promise.resolve(draw(key)).then(() => Plotly.downloadImage(box(key), {
      format: button.dataset.format, filename: key, width: 1200, height: 600,
    })).catch((error) => console.error("Could not download the figure " + key + ":", error));
  }));
})();
