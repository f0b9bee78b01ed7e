// Rewrite page: as the draft changes, mark the runs it still shares with the original post.
// The server measures (POST rewrite/<post>/spans/, publication/rewriting/checks.py highlight_segments),
// with the same normaliser as on save and at release (publication/spans.py: invisible characters,
// emoji, punctuation and whitespace dropped, traditional -> simplified, width folded; placeholders
// such as [手机号] break a run), so the page and the server never disagree. Offsets come back in
// code points of the draft. On save the server measures again against the text as imported too.
(function () {
  "use strict";
  const app = document.getElementById("rewrite-app");
  const draft = document.getElementById("draft");
  if (!app || !draft) return;
  const THRESHOLD = Number(app.dataset.threshold) || 15;
  const URL = app.dataset.spansUrl;
  const form = document.getElementById("rewrite-form");
  const csrf = form ? (form.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "" : "";
  const preview = document.getElementById("preview");
  const meter = document.getElementById("span-meter");
  const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  let timer = null; let sent = 0;

  function show(text, answer) {
    const chars = Array.from(text);  // the server counts code points
    let html = ""; let pos = 0; let marked = 0;
    for (const s of answer.segments) {
      html += esc(chars.slice(pos, s.start).join(""));
      html += `<mark class="${s.length >= THRESHOLD ? "searchable" : "shared"}" title="${s.length}">${esc(chars.slice(s.start, s.end).join(""))}</mark>`;
      marked += s.end - s.start; pos = s.end;
    }
    preview.innerHTML = html + esc(chars.slice(pos).join(""));
    preview.dataset.longest = String(answer.longest);
    preview.dataset.marked = String(marked);
    meter.textContent = interpolate(answer.longest >= THRESHOLD
      ? ngettext("Longest shared span: %s character - searchable (limit %s)",
                 "Longest shared span: %s characters - searchable (limit %s)", answer.longest)
      : ngettext("Longest shared span: %s character - not searchable (limit %s)",
                 "Longest shared span: %s characters - not searchable (limit %s)", answer.longest), [answer.longest, THRESHOLD]);
    meter.className = answer.longest >= THRESHOLD ? "error" : "ok";
  }

  async function update() {
    const text = draft.value; const mine = ++sent;
    try {
      const response = await fetch(URL, {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRFToken": csrf, "Accept": "application/json" },
        body: new URLSearchParams({ text }),
      });
      const answer = await response.json();
      if (mine !== sent) return;  // a newer draft is on its way
      if (!response.ok) { meter.textContent = answer.error || response.statusText; meter.className = "error"; return; }
      show(text, answer);
    } catch (err) {
      if (mine === sent) { meter.textContent = gettext("The shared spans could not be measured; they are measured again on save."); meter.className = "warn"; }
    }
  }

  draft.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(update, 250); });
  document.addEventListener("keydown", (e) => {
    if ((e.ctrlKey || e.metaKey) && (e.key === "s" || e.key === "S")) {
      e.preventDefault(); form.querySelector("button[value=save]").click();
    } else if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
      e.preventDefault(); form.querySelector("button[value=submit]").click();
    } else if (e.key === "Escape") {
      window.location.href = "../";
    }
  });
  update();
})();
