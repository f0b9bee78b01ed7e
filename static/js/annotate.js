// Annotator page: one post at a time, keyboard first. Talks only to the annotation API.
(function () {
  "use strict";
  const app = document.getElementById("app");
  const DIMS = ["explicit", "implicit", "emotional"];
  const csrf = (document.cookie.match(/csrftoken=([^;]+)/) || [])[1] || "";
  const el = (id) => document.getElementById(id);
  // gettext / interpolate come from Django's JavaScript catalogue (base.html loads it).
  const LABELS = { explicit: gettext("Explicit bias"), implicit: gettext("Implicit bias"), emotional: gettext("Emotional intensity") };
  const state = { item: null, scores: {}, focus: 0, shownAt: performance.now(), history: [], historyIndex: -1, judgmentId: null, taken: false, pause: null };

  // Wellbeing pacing (wellbeing/): a break is offered after N posts or M minutes in a row. The streak
  // survives a reload (sessionStorage) and ends by itself after IDLE_MS without a post (a break taken).
  const PACE = { posts: Number(app.dataset.breakPosts) || 25, minutes: Number(app.dataset.breakMinutes) || 40 };
  const IDLE_MS = 10 * 60 * 1000;
  const STREAK_KEY = "wellbeing-streak-" + app.dataset.batch;
  function loadStreak() { try { return JSON.parse(sessionStorage.getItem(STREAK_KEY)) || null; } catch (e) { return null; } }
  function saveStreak(s) { try { sessionStorage.setItem(STREAK_KEY, JSON.stringify(s)); } catch (e) { /* private mode */ } }
  function streakNow() {
    const now = Date.now();
    let s = loadStreak();
    if (!s || now - s.lastAt > IDLE_MS) s = { count: 0, startedAt: now, lastAt: now };
    return s;
  }
  // One more post read (scored or set aside): offer a break when the streak is long enough.
  function countPost() {
    const s = streakNow(); const now = Date.now();
    s.count += 1; s.lastAt = now; saveStreak(s);
    if (s.count >= PACE.posts || now - s.startedAt >= PACE.minutes * 60000) offerBreak();
  }
  function resetStreak() { const now = Date.now(); saveStreak({ count: 0, startedAt: now, lastAt: now }); }
  function offerBreak() { state.pause = "offer"; el("break").hidden = false; el("scores").hidden = true; el("break-take").focus(); }
  function takeBreak() { resetStreak(); state.pause = "break"; el("break").hidden = true; el("on-break").hidden = false; el("break-resume").focus(); }
  function keepGoing() { resetStreak(); state.pause = null; el("break").hidden = true; el("on-break").hidden = true; showItem(state.item); }

  DIMS.forEach((dim) => {
    const box = document.querySelector(`fieldset[data-dim=${dim}] .choices`);
    for (let s = 1; s <= 5; s++) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = s; b.dataset.score = s; b.setAttribute("aria-pressed", "false");
      b.addEventListener("click", () => { setScore(DIMS.indexOf(dim), s); });
      box.appendChild(b);
    }
    document.querySelector(`fieldset[data-dim=${dim}]`).addEventListener("click", () => setFocus(DIMS.indexOf(dim)));
  });

  async function api(url, method, body) {
    const res = await fetch(url, {
      method: method || "GET", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, "Accept": "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    let data = {};
    try { data = await res.json(); } catch (e) { /* empty body */ }
    if (!res.ok) {
      const error = new Error(data.detail || JSON.stringify(data) || res.statusText);
      error.status = res.status; error.data = data;
      throw error;
    }
    return data;
  }

  function render() {
    DIMS.forEach((dim, i) => {
      const fs = document.querySelector(`fieldset[data-dim=${dim}]`);
      fs.classList.toggle("focused", i === state.focus);
      fs.querySelectorAll("button").forEach((b) => b.setAttribute("aria-pressed", String(Number(b.dataset.score) === state.scores[dim])));
    });
    el("mode").textContent = state.judgmentId ? gettext("Revising an earlier judgment (→ returns to the queue)") : "";
  }
  function setFocus(i) { state.focus = Math.max(0, Math.min(DIMS.length - 1, i)); render(); }
  function setScore(i, s) { state.scores[DIMS[i]] = s; setFocus(i + 1 < DIMS.length ? i + 1 : i); }
  function status(msg, isError) { el("status").textContent = msg; el("status").className = isError ? "error" : "muted"; }

  function showProgress(p) {
    const pct = p.total ? Math.round((100 * p.done) / p.total) : 100;
    el("progress").querySelector("span").style.width = pct + "%";
    el("progress").setAttribute("aria-valuenow", p.done); el("progress").setAttribute("aria-valuemax", p.total);
    el("progress-text").textContent = p.skipped
      ? interpolate(gettext("%(done)s of %(total)s done, %(skipped)s skipped"), p, true)
      : interpolate(gettext("%(done)s of %(total)s done"), p, true);
  }

  function showItem(item) {
    state.item = item; state.scores = {}; state.focus = 0; state.judgmentId = null; state.shownAt = performance.now();
    el("flag").checked = false; el("note").value = "";
    showProgress(item.progress);
    if (item.item === null) {
      el("post-text").textContent = item.batch_locked ? gettext("This batch is locked.")
        : item.pause === "daily_cap" ? interpolate(gettext("You have scored today's limit of %(cap)s posts. Thank you — please come back tomorrow."), { cap: app.dataset.dailyCap }, true)
        : gettext("Nothing left in this batch — thank you!");
      el("scores").hidden = true;
    } else {
      el("post-text").textContent = item.text; el("scores").hidden = Boolean(state.pause);
    }
    render();
  }

  function showJudgment(j) {
    state.judgmentId = j.id; state.scores = { explicit: j.explicit, implicit: j.implicit, emotional: j.emotional };
    state.focus = 0; state.shownAt = performance.now();
    el("post-text").textContent = j.post_text; el("flag").checked = j.flagged; el("note").value = j.note;
    el("scores").hidden = false; render();
  }

  // A late submission for a post that went to someone else: say so, and show back what was typed.
  function showTaken(data) {
    state.taken = true;
    el("taken-message").textContent = data.detail;
    const list = el("taken-entered"); list.textContent = "";
    const rows = DIMS.map((d) => [LABELS[d], String(data.entered[d])]);
    rows.push([gettext("Flagged"), data.entered.flagged ? gettext("yes") : gettext("no")]);
    if (data.entered.note) rows.push([gettext("Note"), data.entered.note]);
    rows.forEach(([term, value]) => {
      const dt = document.createElement("dt"); dt.textContent = term;
      const dd = document.createElement("dd"); dd.textContent = value;
      list.append(dt, dd);
    });
    el("taken").hidden = false; el("scores").hidden = true; status("");
    el("taken-next").focus();
  }
  function leaveTaken() { if (!state.taken) return; state.taken = false; el("taken").hidden = true; loadNext(); }

  async function loadNext() {
    try { showItem(await api(app.dataset.next, "POST")); status(""); } catch (e) { status(e.message, true); }
  }

  async function submit() {
    if (!DIMS.every((d) => state.scores[d])) { status(gettext("Score all three dimensions first."), true); setFocus(DIMS.findIndex((d) => !state.scores[d])); return; }
    const seconds = (performance.now() - state.shownAt) / 1000;
    const body = { ...state.scores, note: el("note").value, flagged: el("flag").checked, seconds_spent: Math.round(seconds * 1000) / 1000 };
    try {
      if (state.judgmentId) {
        const j = await api(`${app.dataset.api}${state.judgmentId}/`, "PATCH", body);
        state.history[state.historyIndex] = j; status(gettext("Revision saved."));
        state.historyIndex = -1; await loadNext();
      } else {
        if (!state.item || state.item.item === null) return;
        // One request per scoring step: the answer carries the saved judgment and the next item.
        const step = await api(app.dataset.submit, "POST", { item: state.item.item, ...body });
        state.history.push(step.judgment); state.historyIndex = -1; showItem(step.next); status(gettext("Saved."));
        countPost();
      }
    } catch (e) {
      if (e.status === 409 && e.data && e.data.entered) showTaken(e.data); else status(e.message, true);
    }
  }

  async function skip() {
    if (state.judgmentId || !state.item || state.item.item === null) return;
    try { showItem(await api(app.dataset.skip, "POST", { item: state.item.item })); status(gettext("Skipped.")); } catch (e) { status(e.message, true); }
  }

  // "Too distressing to score": the post goes back to the pool for others and is never shown again here.
  async function setAside() {
    if (state.judgmentId || !state.item || state.item.item === null) return;
    try {
      showItem(await api(app.dataset.setAside, "POST", { item: state.item.item }));
      status(gettext("Set aside: it goes to someone else and does not count against you."));
      countPost();
    } catch (e) { status(e.message, true); }
  }

  async function back() {
    if (!state.history.length) {
      try { state.history = (await api(app.dataset.api)).filter((j) => true).reverse(); } catch (e) { status(e.message, true); return; }
    }
    const idx = state.historyIndex === -1 ? state.history.length - 1 : state.historyIndex - 1;
    if (idx < 0) { status(gettext("No earlier judgment.")); return; }
    state.historyIndex = idx; showJudgment(state.history[idx]);
  }

  document.addEventListener("keydown", (ev) => {
    const inNote = ev.target === el("note");
    if (inNote) { if (ev.key === "Escape") { el("note").blur(); ev.preventDefault(); } return; }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const k = ev.key;
    if (state.taken) { if (k === "Enter") { leaveTaken(); ev.preventDefault(); } return; }
    if (state.pause === "offer") {
      if (k === "b" || k === "B") { takeBreak(); ev.preventDefault(); } else if (k === "k" || k === "K") { keepGoing(); ev.preventDefault(); }
      return;
    }
    if (state.pause === "break") { if (k === "Enter") { keepGoing(); ev.preventDefault(); } return; }
    if (k >= "1" && k <= "5") { setScore(state.focus, Number(k)); ev.preventDefault(); }
    else if (k === "Enter") { submit(); ev.preventDefault(); }
    else if (k === "s" || k === "S") { skip(); ev.preventDefault(); }
    else if (k === "d" || k === "D") { setAside(); ev.preventDefault(); }
    else if (k === "f" || k === "F") { el("flag").checked = !el("flag").checked; ev.preventDefault(); }
    else if (k === "n" || k === "N") { el("note").focus(); ev.preventDefault(); }
    else if (k === "Backspace" || k === "ArrowLeft") { back(); ev.preventDefault(); }
    else if (k === "ArrowRight") { if (state.judgmentId) { state.historyIndex = -1; loadNext(); } ev.preventDefault(); }
    else if (k === "ArrowUp") { setFocus(state.focus - 1); ev.preventDefault(); }
    else if (k === "ArrowDown") { setFocus(state.focus + 1); ev.preventDefault(); }
  });
  el("scores").addEventListener("submit", (ev) => { ev.preventDefault(); submit(); });
  el("skip").addEventListener("click", skip);
  el("set-aside").addEventListener("click", setAside);
  el("break-take").addEventListener("click", takeBreak);
  el("break-continue").addEventListener("click", keepGoing);
  el("break-resume").addEventListener("click", keepGoing);
  el("back").addEventListener("click", back);
  el("taken-next").addEventListener("click", leaveTaken);
  loadNext();
})();
