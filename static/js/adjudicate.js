// Adjudicator page: keyboard-driven like the annotator page; the form posts normally.
(function () {
  "use strict";
  const form = document.getElementById("adjudicate-form");
  if (!form) return;
  const sets = Array.from(form.querySelectorAll("fieldset.dim"));
  const means = JSON.parse(document.getElementById("means").textContent);
  const rationale = document.getElementById("rationale");
  let focus = 0;
  function render() {
    sets.forEach((fs, i) => {
      fs.classList.toggle("focused", i === focus);
      const value = fs.querySelector("input").value;
      fs.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(b.dataset.score === value)));
    });
  }
  function set(i, score) { sets[i].querySelector("input").value = String(score); focus = Math.min(sets.length - 1, i + 1); render(); }
  sets.forEach((fs, i) => fs.querySelectorAll("button").forEach((b) => b.addEventListener("click", () => set(i, b.dataset.score))));
  document.getElementById("accept").addEventListener("click", accept);
  function accept() {
    sets.forEach((fs) => { const v = means[fs.dataset.dim]; if (v) fs.querySelector("input").value = String(v); });
    if (!rationale.value) rationale.value = gettext("Accepted the rounded mean.");
    render();
  }
  document.addEventListener("keydown", (ev) => {
    if (ev.target === rationale) { if (ev.key === "Escape") { rationale.blur(); ev.preventDefault(); } return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key;
    if (k >= "1" && k <= "5") { set(focus, k); ev.preventDefault(); }
    else if (k === "a" || k === "A") { accept(); ev.preventDefault(); }
    else if (k === "r" || k === "R") { rationale.focus(); ev.preventDefault(); }
    else if (k === "Enter") { form.requestSubmit(); ev.preventDefault(); }
    else if (k === "ArrowUp") { focus = Math.max(0, focus - 1); render(); ev.preventDefault(); }
    else if (k === "ArrowDown") { focus = Math.min(sets.length - 1, focus + 1); render(); ev.preventDefault(); }
  });
  render();
})();
