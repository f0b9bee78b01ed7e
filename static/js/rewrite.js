// Rewrite page: as the draft changes, mark the runs it still shares with the original post.
// The same measure as publication/spans.py (NFKC, lower case, whitespace removed; placeholders
// such as [手机号] break a run); the server measures again on save against the text as imported.
(function () {
  "use strict";
  const app = document.getElementById("rewrite-app");
  const draft = document.getElementById("draft");
  if (!app || !draft) return;
  const THRESHOLD = Number(app.dataset.threshold) || 15;
  const MIN_MARK = 5;
  const placeholders = JSON.parse(document.getElementById("placeholders").textContent);
  const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const PLACEHOLDER = new RegExp(placeholders.map(escapeRe).join("|"), "g");

  function fold(ch) { return ch.normalize("NFKC").toLowerCase().replace(/\s/gu, ""); }

  // Code points of the normalised text and, for each, the UTF-16 offset in `text` it came from.
  function normalise(text, breakChar) {
    const chars = []; const where = [];
    let last = 0;
    const push = (segment, offset) => {
      let i = offset;
      for (const ch of segment) { for (const c of fold(ch)) { chars.push(c); where.push(i); } i += ch.length; }
    };
    PLACEHOLDER.lastIndex = 0;
    let m;
    while (placeholders.length && (m = PLACEHOLDER.exec(text)) !== null) {
      push(text.slice(last, m.index), last);
      chars.push(breakChar); where.push(m.index);
      last = m.index + m[0].length;
    }
    push(text.slice(last), last);
    return { chars, where };
  }

  // For each position j, the longest run ending at j that occurs in the original (publication/spans.py
  // matching_lengths: the run grows by at most one per position, so only shrink).
  function matchingLengths(chars, original) {
    const out = new Array(chars.length).fill(0);
    let current = 0;
    for (let j = 0; j < chars.length; j++) {
      current += 1;
      while (current && !original.includes(chars.slice(j - current + 1, j + 1).join(""))) current -= 1;
      out[j] = current;
    }
    return out;
  }

  const original = normalise(document.getElementById("original").textContent, "\uE001").chars.join("");
  const preview = document.getElementById("preview");
  const meter = document.getElementById("span-meter");
  const esc = (s) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));

  function update() {
    const text = draft.value;
    const { chars, where } = normalise(text, "\uE000");
    const lengths = matchingLengths(chars, original);
    const longest = lengths.reduce((a, b) => Math.max(a, b), 0);
    const segments = [];
    lengths.forEach((n, j) => {
      if (n < MIN_MARK) return;
      const start = where[j - n + 1]; const end = where[j] + 1;
      const lastSeg = segments[segments.length - 1];
      if (lastSeg && start <= lastSeg.end) { lastSeg.end = Math.max(lastSeg.end, end); lastSeg.n = Math.max(lastSeg.n, n); }
      else segments.push({ start, end, n });
    });
    let html = ""; let pos = 0;
    for (const s of segments) {
      html += esc(text.slice(pos, s.start));
      html += `<mark class="${s.n >= THRESHOLD ? "searchable" : "shared"}" title="${s.n}">${esc(text.slice(s.start, s.end))}</mark>`;
      pos = s.end;
    }
    preview.innerHTML = html + esc(text.slice(pos));
    preview.dataset.longest = String(longest);
    preview.dataset.marked = String(segments.reduce((a, s) => a + s.end - s.start, 0));
    meter.textContent = interpolate(
      longest >= THRESHOLD ? gettext("Longest shared span: %s characters - searchable (limit %s)")
                           : gettext("Longest shared span: %s characters - not searchable (limit %s)"), [longest, THRESHOLD]);
    meter.className = longest >= THRESHOLD ? "error" : "ok";
  }

  draft.addEventListener("input", update);
  document.addEventListener("keydown", (e) => {
    const form = document.getElementById("rewrite-form");
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
