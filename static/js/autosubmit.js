// A <select data-autosubmit> sends its form when changed (an inline onchange= would be refused by the
// Content-Security-Policy, which allows no inline event handlers).
(function () {
  "use strict";
  document.addEventListener("change", function (event) {
    if (event.target.matches("select[data-autosubmit]") && event.target.form) event.target.form.submit();
  });
})();
