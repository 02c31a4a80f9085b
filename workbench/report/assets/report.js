// The report page: a summary of every scenario and, per scenario, a trace viewer.
// Data comes from scripts beside this page (data/*.js call WB.report/WB.screens/WB.page),
// because a page opened from file:// may load scripts but may not fetch files.
"use strict";
const WB = (() => {
  let report = null;
  let screens = null;
  const pages = {};
  const filters = { status: "all", tag: "", text: "" };
  let view = null; // the scenario page being shown: {id, page, pos, timer, cast}

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (key === "html") node.innerHTML = value;
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const main = () => document.getElementById("main");
  const seconds = (ms) => (ms >= 10000 ? (ms / 1000).toFixed(1) : (ms / 1000).toFixed(2)) + " s";
  const badge = (status) => el("span", { class: "badge " + status }, status);
  const loaded = {};
  function load(src) {
    if (!loaded[src]) {
      loaded[src] = new Promise((resolve, reject) => {
        const script = el("script", { src });
        script.onload = resolve;
        script.onerror = () => reject(new Error("cannot load " + src + " (is the report folder complete?)"));
        document.body.append(script);
      });
    }
    return loaded[src];
  }
  function screenHTML(id) {
    if (id === null || id === undefined || !screens) return "";
    return `<span class="rows">${screens.screens[id].map((row) => screens.rows[row]).join("\n")}</span>`;
  }
  function term(id, extraClass) {
    const pre = el("pre", { class: "term" + (extraClass ? " " + extraClass : "") });
    pre.innerHTML = screenHTML(id);
    const size = view && view.page.profile;
    if (size) { // the whole terminal, blank cells included: trailing blanks are not stored
      pre.style.width = `${size.width}ch`;
      pre.style.setProperty("--cols", size.width); // a narrow window shrinks the font to fit them (report.css)
      pre.style.height = `${size.height}lh`; // rows of the font's own height (line-height: normal, as a terminal's cells)
    }
    return pre;
  }
  function failureLine(f) {
    return f ? `${f.kind} (line ${f.line}): ${f.message}` : "";
  }
  // A scenario that passed but saw a text differ (the agent's prompt) says so in its row.
  function mismatchLine(found) {
    const m = found && found[0];
    const short = (text) => JSON.stringify(text.length > 120 ? text.slice(0, 119) + "…" : text);
    return m ? `${m.what} differs (line ${m.line}): expected ${short(m.expected)}, got ${short(m.actual)}` : "";
  }
  // A message's first lines, for a row of the summary: a failure that quotes a whole screen (a timeout)
  // would make its row as tall as the terminal; the scenario's page shows all of it.
  const BRIEF_LINES = 3;
  function brief(text) {
    const lines = text.split("\n");
    if (lines.length <= BRIEF_LINES) return text;
    const more = lines.length - BRIEF_LINES;
    return lines.slice(0, BRIEF_LINES).join("\n") + `\n… ${more} more line${more === 1 ? "" : "s"} on the scenario's page`;
  }

  // ------------------------------------------------------------------ routing
  // A scenario opens at its top; the summary comes back scrolled where it was left (in a summary of hundreds
  // of scenarios, its first row is far from the one just read). The page keeps the positions, not the browser.
  let summaryShown = false;
  let summaryY = 0;
  history.scrollRestoration = "manual";
  function route() {
    if (!report) return;
    stopTimers();
    if (summaryShown) summaryY = window.scrollY;
    const match = /^#\/s\/(\d+)(?:\/(\d+))?$/.exec(location.hash);
    summaryShown = !match;
    if (!match) readFilters();
    if (match) openScenario(Number(match[1]), match[2] === undefined ? null : Number(match[2]));
    else { showSummary(); window.scrollTo(0, summaryY); }
  }
  function stopTimers() {
    if (view && view.timer) clearInterval(view.timer);
    if (view && view.cast && view.cast.timer) clearTimeout(view.cast.timer);
    view = null;
  }

  // The summary's filters are in its address (#?status=failed&tag=t&q=text): a reload keeps them, and a link
  // copied from the address bar shows what its sender saw.
  function readFilters() {
    const query = new URLSearchParams(location.hash.startsWith("#?") ? location.hash.slice(2) : "");
    filters.status = query.get("status") || "all";
    filters.tag = query.get("tag") || "";
    filters.text = query.get("q") || "";
  }
  function summaryHash() {
    const query = new URLSearchParams();
    if (filters.status !== "all") query.set("status", filters.status);
    if (filters.tag) query.set("tag", filters.tag);
    if (filters.text) query.set("q", filters.text);
    return query.toString() ? "#?" + query : "#";
  }
  function keepFilters() {
    const hash = summaryHash();
    if ((location.hash || "#") !== hash) history.replaceState(null, "", hash === "#" ? location.pathname : hash);
  }

  // ------------------------------------------------------------------ summary
  function showSummary() {
    document.title = report.title;
    const root = main();
    root.replaceChildren();
    const rows = report.scenarios;
    const counts = report.counts;
    const chips = el("div", { class: "filters", id: "filters" });
    for (const status of ["all", "failed", "error", "cancelled", "passed", "skipped"]) {
      const n = status === "all" ? rows.length : counts[status] || 0;
      if (status !== "all" && !n) continue;
      chips.append(el("button", { class: "chip" + (filters.status === status ? " on" : ""), "data-status": status,
        onclick: () => { filters.status = status; showSummary(); refocus(status); } }, `${status === "all" ? "All" : status} ${n}`));
    }
    const tags = [...new Set(rows.flatMap((r) => r.tags))].sort();
    if (tags.length) {
      const select = el("select", { id: "tag", onchange: (e) => { filters.tag = e.target.value; fill(); } },
        el("option", { value: "" }, "any tag"), tags.map((t) => el("option", { value: t, selected: t === filters.tag }, t)));
      chips.append(select);
    }
    const search = el("input", { type: "search", id: "search", placeholder: "Filter by name, file, agent or failure message", value: filters.text,
      oninput: (e) => { filters.text = e.target.value; fill(); } });
    chips.append(search);
    const ms = report.duration_ms ? ` in ${seconds(report.duration_ms)}` : "";
    root.append(el("h2", {}, `${rows.length} scenario${rows.length === 1 ? "" : "s"}${ms}`), chips);
    const body = el("tbody");
    root.append(el("table", { class: "list", id: "scenarios" },
      el("thead", {}, el("tr", {}, ["Status", "Scenario", "Mode", "Agent", "Duration", "Details"].map((h) => el("th", {}, h)))), body));
    const matrix = matrixTable(rows);
    if (matrix) root.append(el("h2", {}, "Scenarios × agents"), matrix);
    function fill() {
      keepFilters();
      const text = filters.text.toLowerCase();
      const shown = rows.filter((r) => (filters.status === "all" || r.status === filters.status)
        && (!filters.tag || r.tags.includes(filters.tag))
        && (!text || [r.name, r.file, r.agent, r.reason, ...(r.entry.failures || []).map(failureLine), mismatchLine(r.entry.mismatches)]
          .join("\n").toLowerCase().includes(text)));
      // a click on a row opens its scenario; a drag that selects text in it (a failure message to copy) does not
      const open = (r) => { if (!String(getSelection())) location.hash = `#/s/${r.id}`; };
      body.replaceChildren(...shown.map((r) => el("tr", { class: "row " + r.status, "data-id": r.id, onclick: () => open(r) },
        el("td", {}, badge(r.status)),
        el("td", {}, el("a", { href: `#/s/${r.id}`, class: "name" }, r.name), r.tags.map((t) => el("span", { class: "tag" }, t)),
          el("div", { class: "muted" }, r.file)),
        el("td", {}, r.mode), el("td", {}, r.agent || "—"),
        el("td", { class: "num" }, ran(r) ? seconds(r.duration_ms) : "—"), details(r))));
      if (!shown.length) body.append(el("tr", {}, el("td", { colspan: 6, class: "empty" }, "No scenario matches the filters.")));
    }
    fill();
    performance.mark("wb-summary"); // for benchmarks/report.py: the summary is on the page
  }
  // The summary is drawn anew for a status chip: the chip pressed keeps the keyboard's focus (it went to the
  // page's start, and Tab from there led back to the first chip).
  function refocus(status) {
    const chip = document.querySelector(`#filters button[data-status="${status}"]`);
    if (chip) chip.focus();
  }
  // A row's details: its first failure; else why it ended as it did (a skip's reason, which reads as its
  // status, never as a failure); else what the run saw differ.
  function details(r) {
    if (r.first_failure) {
      // the others are named, so that fixing the first does not end in a second failed run to learn of them
      const more = (r.entry.failures || []).length - 1;
      return el("td", { class: "msg" }, brief(failureLine(r.first_failure)),
        more > 0 ? el("div", { class: "muted more" }, `and ${more} more failure${more === 1 ? "" : "s"} on the scenario's page`) : null);
    }
    if (r.reason) return el("td", { class: "msg reason" }, el("strong", {}, `${r.status}: `), brief(r.reason));
    return el("td", { class: "msg" }, brief(mismatchLine(r.entry.mismatches)));
  }
  // Whether the scenario ran, so that its duration was measured, or shows none rather than 0.00 s: a skipped one
  // did not (its entry's few ms are the time it took to decide so), one that did not load has 0 ms.
  const ran = (r) => r.status !== "skipped" && r.duration_ms > 0;
  function matrixTable(rows) {
    const agents = [...new Set(rows.map((r) => r.agent).filter(Boolean))].sort();
    if (agents.length < 2) return null;
    const byScenario = new Map();
    for (const r of rows.filter((r) => r.agent)) { // (a scenario run under no agent is not in the matrix)
      const key = r.file + "\n" + r.name;
      if (!byScenario.has(key)) byScenario.set(key, { name: r.name, cells: {} });
      byScenario.get(key).cells[r.agent] = r;
    }
    return el("table", { class: "matrix", id: "matrix" },
      el("thead", {}, el("tr", {}, el("th", {}, "Scenario"), agents.map((a) => el("th", {}, a)))),
      el("tbody", {}, [...byScenario.values()].map((s) => el("tr", {}, el("td", {}, s.name),
        agents.map((a) => el("td", {}, s.cells[a] ? el("a", { href: `#/s/${s.cells[a].id}` }, badge(s.cells[a].status)) : "—"))))));
  }

  // ------------------------------------------------------------------ a scenario
  async function openScenario(id, pos) {
    const row = report.scenarios[id];
    if (!row) { location.hash = ""; return; }
    try {
      await Promise.all([load("data/screens.js"), load(`data/s/${id}.js`)]);
    } catch (err) {
      main().replaceChildren(el("p", { class: "failure" }, String(err.message || err)));
      return;
    }
    const page = pages[id];
    document.title = `${row.name} · ${report.title}`;
    const failedSteps = new Set(page.failures.map((f) => f.step));
    page.mismatches = page.mismatches || []; // (a report written before mismatches were)
    page.steps.forEach((s, i) => {
      if (s.checks.some((c) => c.ok === false) || failedSteps.has(s.index)) s.bad = true;
      s.mismatches = page.mismatches.filter((m) => m.step === s.index);
      s.pos = i;
    });
    // the page opens where the scenario failed, else where the run saw something differ
    const bad = page.steps.findIndex((s) => s.bad);
    const firstBad = bad >= 0 ? bad : page.steps.findIndex((s) => s.mismatches.length);
    view = { id, page, row, pos: 0, timer: null, cast: null };
    renderScenario();
    window.scrollTo(0, 0);
    select(pos !== null ? pos : firstBad >= 0 ? firstBad : 0, false);
    performance.mark("wb-scenario"); // for benchmarks/report.py: the scenario's page is on the page
  }

  function renderScenario() {
    const { page, row } = view;
    const root = main();
    root.replaceChildren();
    root.append(el("div", { class: "scn-head" },
      el("a", { href: summaryHash(), id: "back" }, "← All scenarios"), badge(row.status), el("h2", {}, row.name),
      el("span", { class: "muted" }, row.file), el("span", {}, `mode ${row.mode}`), row.agent ? el("span", {}, `agent ${row.agent}`) : null,
      ran(row) ? el("span", {}, seconds(row.duration_ms)) : null, row.virtual_ms ? el("span", { class: "muted" }, `${seconds(row.virtual_ms)} virtual`) : null,
      page.profile ? el("span", { class: "muted" }, `${page.profile.width}×${page.profile.height}`) : null));
    const problems = el("div", { id: "failures" });
    for (const f of page.failures) {
      const at = page.steps.find((s) => s.index === f.step);
      problems.append(el("div", { class: "failure" },
        el("strong", {}, f.kind), ` at line ${f.line}`, at ? el("span", {}, " · ", el("a", { href: `#/s/${view.id}/${at.pos}` }, `step ${f.step}`)) : null,
        el("pre", { class: "message" }, f.message), f.diff ? consoleText(f.diff) : null));
    }
    for (const m of page.mismatches) {
      const at = page.steps.find((s) => s.index === m.step);
      problems.append(el("div", { class: "note mismatch-note" },
        el("strong", {}, `${m.what} differs`), ` at line ${m.line}`, at ? el("span", {}, " · ", el("a", { href: `#/s/${view.id}/${at.pos}` }, `step ${m.step}`)) : null,
        el("span", { class: "muted" }, ` · ${MISMATCH_SIDES[m.what] ? MISMATCH_SIDES[m.what][2] : "the run saw another text than the scenario's"} (not a failure)`),
        at ? null : mismatchView(m)));
    }
    for (const w of row.entry.warnings || []) problems.append(el("div", { class: "skip warning" }, el("strong", {}, "warning: "), w));
    if (row.reason) problems.append(el("div", { class: "skip" }, el("strong", {}, `${row.status}: `), row.reason));
    for (const c of page.skipped_checks) problems.append(el("div", { class: "skip" }, el("strong", {}, `skipped check ${c.check}`), ` (line ${c.line}): ${c.reason}`));
    root.append(problems);
    if (!page.steps.length) {
      // a scenario that did not load: its source, at the line of its first failure, says what to fix
      const line = page.failures.length ? page.failures[0].line : 0;
      const shown = line > 0 && page.source.length > 0;
      const why = page.failures.some((f) => f.kind === "validation") ? `It did not load, so it did not run${shown ? ": fix it at the line below" : ""}.`
        : row.status === "skipped" ? "It was skipped, so it did not run." : "No trace was recorded for it (it did not run, or its run folder was not given).";
      root.append(el("p", { class: "empty", id: "no-trace" }, why));
      if (shown) {
        root.append(el("section", { class: "box", id: "failed-source" }, el("h3", {}, `Source · ${row.file}:${line}`), sourceView(page.source, line)));
        const hl = root.querySelector("#failed-source .hl");
        if (hl) requestAnimationFrame(() => { hl.parentNode.scrollTop = Math.max(0, hl.offsetTop - hl.parentNode.clientHeight / 3); });
      }
    } else {
      const list = el("ol", {}, page.steps.map((s, i) => el("li", { class: s.bad ? "bad" : s.mismatches.length ? "warn" : null, "data-pos": i, title: s.summary, onclick: () => select(i, true) },
        el("span", { class: "n" }, `#${s.index}`), el("span", { class: "t" }, s.at_ms === null ? "—" : `${s.at_ms} ms`), el("span", {}, s.summary || s.action))));
      root.append(el("div", { class: "viewer" },
        el("nav", { class: "steps", id: "steps" }, el("div", { class: "help" }, el("kbd", {}, "←"), " ", el("kbd", {}, "→"), " step · ",
          el("kbd", {}, "Home"), " ", el("kbd", {}, "End"), " first, last"), list),
        el("section", { class: "detail", id: "detail" })));
      if (page.steps.some((s) => s.screen !== null)) // a run that never drew a screen has no film to play
        root.append(el("section", { class: "box" }, el("h3", {}, "Film strip"), filmStrip(page)));
    }
    if (page.shots.length) root.append(shotsSection(page));
    if (page.cast && page.cast.frames.length) root.append(castSection(page.cast));
  }

  // What the console (and JUnit) printed under the failure: a short note (where a missing golden goes) is
  // shown, a screenshot's text diff is folded (the Screenshots section below draws it).
  function consoleText(text) {
    const short = text.split("\n").length <= 3;
    return el("details", { class: "console", open: short }, el("summary", {}, "as the console printed it"),
      el("pre", { class: "message" }, text));
  }

  function filmStrip(page) {
    const strip = el("div", { class: "strip", id: "strip" });
    let last = -1;
    page.steps.forEach((s, i) => {
      if (s.screen === null || s.screen === last) return;
      last = s.screen;
      strip.append(el("div", { class: "frame", "data-pos": i, title: `step ${s.index}: ${s.summary}`, onclick: () => select(i, true) },
        term(s.screen), el("div", {}, `#${s.index}`)));
    });
    const play = el("button", { id: "play", onclick: () => {
      if (view.timer) { clearInterval(view.timer); view.timer = null; play.textContent = "▶ Play steps"; return; }
      play.textContent = "⏸ Pause";
      if (view.pos >= page.steps.length - 1) select(0, true);
      view.timer = setInterval(() => {
        if (view.pos >= page.steps.length - 1) { clearInterval(view.timer); view.timer = null; play.textContent = "▶ Play steps"; return; }
        select(view.pos + 1, true);
      }, 500);
    } }, "▶ Play steps");
    return el("div", {}, el("div", { class: "player" }, play), strip);
  }

  function select(pos, remember) {
    const page = view.page;
    if (!page.steps.length) return;
    pos = Math.max(0, Math.min(page.steps.length - 1, pos));
    view.pos = pos;
    const step = page.steps[pos];
    if (remember) history.replaceState(null, "", `#/s/${view.id}/${pos}`);
    for (const li of document.querySelectorAll("#steps li")) li.classList.toggle("sel", Number(li.dataset.pos) === pos);
    const current = document.querySelector(`#steps li[data-pos="${pos}"]`);
    if (current) reveal(current.closest("nav"), current, "Top", "Height");
    let frame = null;
    for (const f of document.querySelectorAll("#strip .frame")) { if (Number(f.dataset.pos) <= pos) frame = f; f.classList.remove("sel"); }
    if (frame) { frame.classList.add("sel"); reveal(frame.parentNode, frame, "Left", "Width"); }
    const detail = document.getElementById("detail");
    // the step's parts are drawn anew: a control of them that had the keyboard's focus (◀, ▶, mark changes)
    // keeps it. The source stays on the page (a long file laid out again at each step made stepping slow).
    const focused = detail.contains(document.activeElement) ? document.activeElement.id : "";
    if (!view.parts) {
      view.parts = { top: el("div"), screen: el("div", { class: "pane" }), sourceHead: el("h3"), bottom: el("div") };
      detail.replaceChildren(view.parts.top, el("div", { class: "panes" }, view.parts.screen,
        el("div", { class: "pane grow" }, view.parts.sourceHead, sourceView(page.source, 0))), view.parts.bottom);
    }
    view.parts.top.replaceChildren(
      el("div", { class: "step-head" },
        el("button", { id: "prev", onclick: () => select(view.pos - 1, true), disabled: pos === 0 }, "◀"),
        el("button", { id: "next", onclick: () => select(view.pos + 1, true), disabled: pos === page.steps.length - 1 }, "▶"),
        el("strong", { id: "step-title" }, `Step ${step.index}`), el("span", { class: "muted" }, `${pos + 1} of ${page.steps.length}`),
        el("span", { class: "what" }, `${step.actor} · ${step.action} · ${step.summary}`),
        el("span", { class: "muted", id: "step-time" }, step.at_ms === null ? `${step.wall_ms} ms wall (the scenario gives no times)`
          : `at ${step.at_ms} ms virtual, ${step.wall_ms} ms wall`)),
      ...step.mismatches.map(mismatchView),
      // the step that took a screenshot that differs shows the difference, where the page opens
      ...page.shots.filter((s) => s.step === step.index && s.golden_marked !== null).map((s) =>
        el("div", { class: "box shot-here" }, el("div", { class: "step-head" }, el("strong", {}, `screenshot ${s.label}`),
          el("span", { class: "badge failed" }, s.status), el("span", { class: "muted" }, `differs from its golden: ${cellsDiffer(s)}`)), shotDiff(s))));
    view.parts.screen.replaceChildren(el("h3", {}, "Screen ", changesToggle(step)),
      step.screen === null ? el("p", { class: "empty" }, "no screen") : term(marking && step.changes !== null ? step.changes : step.screen, "screen"));
    view.parts.sourceHead.textContent = `Source · ${view.row.file}:${step.line}`;
    view.parts.bottom.replaceChildren(...[checksView(step), filesView(step), trafficView(step)].filter(Boolean));
    const source = detail.querySelector("pre.src");
    for (const marked of detail.querySelectorAll("pre.src .hl")) marked.classList.remove("hl");
    const hl = source && source.children[step.line - 1];
    if (hl) {
      hl.classList.add("hl");
      source.scrollTop = Math.max(0, hl.offsetTop - source.clientHeight / 3);
    }
    const again = focused && document.getElementById(focused);
    if (again) (again.disabled ? document.getElementById(focused === "next" ? "prev" : "next") : again).focus();
  }

  // Scroll ``box`` (not the page) so that ``item`` is inside it.
  function reveal(box, item, side, size) {
    const start = item[`offset${side}`] - (item.offsetParent === box ? 0 : box[`offset${side}`]);
    if (start < box[`scroll${side}`]) box[`scroll${side}`] = start;
    else if (start + item[`offset${size}`] > box[`scroll${side}`] + box[`client${size}`]) box[`scroll${side}`] = start + item[`offset${size}`] - box[`client${size}`];
  }

  // Whether the step's screen marks the cells that changed since the step before (remembered across steps).
  let marking = false;
  function changesToggle(step) {
    const box = el("input", { type: "checkbox", id: "mark-changes", checked: marking, onchange: () => { marking = box.checked; select(view.pos, false); } });
    return el("label", { class: "toggle", title: "mark the cells this step changed on the screen" }, box,
      step.changes === null ? " mark changes (none in this step)" : " mark changes since the step before");
  }

  // What differs, per kind: the titles of the two sides and what it means.
  const MISMATCH_SIDES = {
    prompt: ["Expected: the scenario's input", "Actual: the agent's prompt", "the agent's prompt does not hold the scenario's input"],
  };
  // The two texts side by side, the words that differ marked (as golden and actual are for a screenshot).
  function mismatchView(m) {
    const [left, right] = MISMATCH_SIDES[m.what] || ["Expected", "Actual"];
    const side = (title, pieces, cut, cls) => {
      const pre = el("pre", { class: "text " + cls }, pieces.map(([text, changed]) => changed ? el("span", { class: "x" }, text) : text));
      if (cut) pre.append(el("span", { class: "muted" }, `\n… ${cut} more characters`));
      return el("div", {}, el("h3", {}, title), pre);
    };
    return el("div", { class: "box mismatch", "data-what": m.what },
      el("h3", {}, `${m.what} differs (line ${m.line})`),
      el("div", { class: "sides text-diff" }, side(left, m.expected, m.cut[0], "expected"), side(right, m.actual, m.cut[1], "actual")));
  }

  function sourceView(lines, line) {
    if (!lines.length) return el("p", { class: "empty" }, "the scenario file could not be read");
    const pre = el("pre", { class: "src", id: "source" });
    pre.innerHTML = lines.map((html, i) => `<span class="ln${i + 1 === line ? " hl" : ""}" data-n="${i + 1}">${html}</span>`).join("");
    return pre;
  }
  function checksView(step) {
    // a failure at this step that none of its checks shows (an assert the mock LLM server made) is one more
    const failed = view.page.failures.filter((f) => f.step === step.index && !step.checks.some((c) => c.message === f.message))
      .map((f) => ({ ok: false, message: f.message }));
    const checks = step.checks.concat(failed);
    if (!checks.length) return null;
    return el("div", { class: "box", id: "checks" }, el("h3", {}, "Checks"),
      checks.map((c) => el("div", { class: "check" + (c.ok === false ? " bad" : c.ok === null ? " skipped" : "") },
        el("strong", {}, c.ok === true ? "✓ holds" : c.ok === false ? "✗ fails" : "– not checked"), el("pre", {}, c.message))));
  }
  function filesView(step) {
    if (!step.files.length) return null;
    return el("div", { class: "box", id: "files" }, el("h3", {}, "Files changed"),
      step.files.map((f) => el("div", { class: "file" }, el("span", { class: "path" }, `${f.change}: ${f.path}`), f.diff ? diffView(f.diff) : null)));
  }
  function diffView(text) {
    const pre = el("pre", { class: "diff" });
    for (const line of text.replace(/\n$/, "").split("\n")) {
      const kind = line.startsWith("+++") || line.startsWith("---") ? "meta" : line.startsWith("+") ? "add"
        : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : line.startsWith("(") || line.startsWith("\\") ? "meta" : "";
      pre.append(el("span", { class: kind || null }, line || " "));
    }
    return pre;
  }
  function trafficView(step) {
    if (!step.traffic.length) return null;
    const models = step.traffic.filter((t) => t.kind === "model").length;
    const title = models === step.traffic.length ? "Model requests" : models ? "Model requests and ACP messages" : "ACP messages";
    return el("div", { class: "box", id: "traffic" }, el("h3", {}, title),
      step.traffic.map((t) => el("details", { class: "msg" }, el("summary", {}, t.title), el("pre", {}, t.json))));
  }

  const cellsDiffer = (s) => `${s.changed} cell${s.changed === 1 ? "" : "s"} differ, row${s.rows.length === 1 ? "" : "s"} ${s.rows.join(", ")}`;
  // Golden and actual of a screenshot that differs, side by side, the changed cells marked on both.
  function shotDiff(s) {
    const cols = view.page.profile ? view.page.profile.width : 80; // the font fits two screens in the box
    return el("div", { class: "sides shot-diff", "data-label": s.label, style: `--cols: ${cols}` },
      el("div", {}, el("h3", {}, "Golden"), term(s.golden_marked, "golden")),
      el("div", {}, el("h3", {}, "Actual"), term(s.actual_marked, "actual")));
  }

  function shotsSection(page) {
    const box = el("section", { class: "box", id: "shots" }, el("h3", {}, "Screenshots"));
    for (const s of page.shots) {
      const head = el("div", { class: "step-head" }, el("strong", {}, s.label), el("span", { class: "badge " + (s.status === "match" ? "passed" : s.status === "mismatch" ? "failed" : "skipped") }, s.status));
      const at = page.steps.find((st) => st.index === s.step);
      if (at) head.append(el("a", { href: `#/s/${view.id}/${at.pos}` }, `step ${s.step}`));
      box.append(head);
      if (s.golden_marked !== null) {
        head.append(el("span", { class: "muted" }, cellsDiffer(s)));
        box.append(shotDiff(s));
        const toggle = el("div", { class: "sides" });
        box.append(el("h3", {}, "One screen, changed cells marked"), toggle);
        toggle.append(term(s.actual_marked, "combined"));
      } else {
        const sides = el("div", { class: "sides" });
        if (s.golden !== null) sides.append(el("div", {}, el("h3", {}, "Golden"), term(s.golden)));
        if (s.actual !== null && s.actual !== s.golden) sides.append(el("div", {}, el("h3", {}, "Actual"), term(s.actual)));
        if (s.golden === null && s.actual === null) sides.append(el("p", { class: "empty" }, "the golden and the capture were not found"));
        box.append(sides);
      }
    }
    return box;
  }

  // The recording opens on its last frame, as the terminal was when the run ended (its first frame is the
  // blank terminal before the program printed anything); ▶ plays it from the start.
  function castSection(cast) {
    const screen = term(cast.frames[0][1], "cast");
    const slider = el("input", { type: "range", min: 0, max: Math.round(cast.duration * 1000), value: 0, step: 1, id: "cast-time" });
    const clock = el("span", { class: "muted" }, `0.00 / ${cast.duration.toFixed(2)} s`);
    const state = { timer: null, t: 0, started: 0 };
    view.cast = state;
    function frameAt(t) {
      let lo = 0;
      for (let i = 0; i < cast.frames.length && cast.frames[i][0] <= t; i++) lo = i;
      return cast.frames[lo][1];
    }
    function show(t) {
      state.t = t;
      screen.innerHTML = screenHTML(frameAt(t));
      slider.value = Math.round(t * 1000);
      clock.textContent = `${t.toFixed(2)} / ${cast.duration.toFixed(2)} s`;
    }
    function tick() {
      const t = (performance.now() - state.started) / 1000;
      if (t >= cast.duration) { show(cast.duration); stop(); return; }
      show(t);
      state.timer = setTimeout(tick, 33);
    }
    function stop() { clearTimeout(state.timer); state.timer = null; play.textContent = "▶ Play recording"; }
    const play = el("button", { id: "cast-play", onclick: () => {
      if (state.timer) { stop(); return; }
      if (state.t >= cast.duration) state.t = 0;
      state.started = performance.now() - state.t * 1000;
      play.textContent = "⏸ Pause";
      tick();
    } }, "▶ Play recording");
    slider.addEventListener("input", () => { stop(); show(Number(slider.value) / 1000); });
    show(cast.duration);
    const marks = cast.markers.map(([t, label]) => el("button", { class: "chip", onclick: () => { stop(); show(t); } }, `${label} @ ${t.toFixed(2)} s`));
    const cut = cast.cut ? el("p", { class: "muted", id: "cast-cut" }, "The recording is cut: the report keeps its first "
      + "part only, and terminal.cast in the run folder has all of it.") : null;
    return el("section", { class: "box", id: "recording" }, el("h3", {}, "Terminal recording (terminal.cast)"),
      el("div", { class: "player" }, play, slider, clock), marks.length ? el("div", { class: "player" }, marks) : null, cut, screen);
  }

  // ------------------------------------------------------------------ keys
  document.addEventListener("keydown", (event) => {
    if (!view || !view.page.steps.length || event.altKey || event.ctrlKey || event.metaKey) return;
    const tag = event.target && event.target.tagName;
    // (a text field, a list and the recording's slider take the arrows; a checkbox has no use for them)
    if ((tag === "INPUT" && event.target.type !== "checkbox") || tag === "SELECT" || tag === "TEXTAREA") return;
    const moves = { ArrowLeft: view.pos - 1, ArrowRight: view.pos + 1, Home: 0, End: view.page.steps.length - 1 };
    if (!(event.key in moves)) return;
    event.preventDefault();
    select(moves[event.key], true);
  });
  window.addEventListener("hashchange", route);

  // The summary's data, beside this page; when it cannot be had, the page says why it stays empty.
  load("data/report.js").catch(() => {
    main().replaceChildren(el("p", { class: "failure", id: "no-data" }, `The report's data did not load `
      + `(${new URL("data/report.js", location.href).href}): the report folder is not whole (download all of it, its `
      + "data/ folder too), or the server showing it does not serve its .js files as JavaScript (an artifact view "
      + "of a CI server may not). Open the downloaded folder's index.html in a browser."));
  });

  return {
    report(data) {
      report = data;
      document.getElementById("generated").textContent = `generated ${data.generated}`;
      route();
    },
    screens(data) { screens = data; },
    page(id, data) { pages[id] = data; },
  };
})();
