// Plotly's own words (mode bar, hints; the keys are plotly.js 3's English) in the page's language,
// from Django's JavaScript catalogue.
// Pages pass `locale: plotlyLocale()` in each figure's config.
const ZH_DATES = {
  days: ["星期日", "星期一", "星期二", "星期三", "星期四", "星期五", "星期六"],
  shortDays: ["周日", "周一", "周二", "周三", "周四", "周五", "周六"],
  months: ["一月", "二月", "三月", "四月", "五月", "六月", "七月", "八月", "九月", "十月", "十一月", "十二月"],
  shortMonths: ["1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"],
  periods: ["上午", "下午"],
  dateTime: "%Y年%-m月%-d日 %X", date: "%Y-%m-%d", time: "%H:%M:%S",
  decimal: ".", thousands: ",", grouping: [3], currency: ["¥", ""],
  year: "%Y年", month: "%Y年%-m月", dayMonth: "%-m月%-d日", dayMonthYear: "%Y年%-m月%-d日",
};

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
      // Dates on time axes ("11月8日" rather than "Nov 8"): a format names every key Plotly reads
      // (a partial one breaks it); numbers are written alike in both languages (1,234.5).
      format: name.toLowerCase().startsWith("zh") ? ZH_DATES : undefined,
    });
    plotlyLocale.done = true;
  }
  return name;
}
