// contract-fakes dashboard: reads the fake's control plane (JSON under _fake/) and draws it.
// No framework, no build step, nothing from elsewhere. Every URL is made from this page's own
// path, so the page works below a prefix, in a world (/_w/<id>/_fake/ui) and through the gateway.
"use strict";

(() => {
  const JOURNAL_LIMIT = 200;
  const TICK_MS = 1000;
  const WORLD_ID = /^[A-Za-z0-9_-]{1,64}$/;
  const page = location.pathname;
  const base = page.slice(0, Math.max(0, page.lastIndexOf("/_fake/ui")));
  const url = (path) => `${base}/${String(path).replace(/^\/+/, "")}`;
  const $ = (id) => document.getElementById(id);

  const state = {
    info: null, entries: [], total: 0, lastSeq: null, expanded: new Set(), marked: null,
    rendered: {}, signedOut: false, tick: 0,
  };

  // -- small DOM helpers (text only: nothing the fake sends is ever parsed as HTML) -------------
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const show = (node, visible) => { node.hidden = !visible; };
  const changed = (key, value) => {
    const text = JSON.stringify(value);
    if (state.rendered[key] === text) return false;
    state.rendered[key] = text;
    return true;
  };
  const iso = (ms) => new Date(ms).toISOString().replace(".000Z", "Z");

  // -- the control plane ----------------------------------------------------------------------
  async function api(path, { method = "GET", body } = {}) {
    const init = { method, credentials: "same-origin", headers: { Accept: "application/json", "X-Fakes-UI": "1" } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(url(path), init);
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (_) { data = { message: text }; }
    if (response.status === 401) signedOut();
    if (!response.ok) {
      const error = new Error((data && data.message) || `${response.status} ${response.statusText}`);
      error.status = response.status;
      throw error;
    }
    return data;
  }

  function signedOut() {
    if (state.signedOut) return;
    state.signedOut = true;
    const banner = $("banner");
    banner.replaceChildren("The control plane refused the dashboard (its sign-in is gone or the token changed): ",
      el("a", { href: url("_fake/ui"), text: "sign in again" }), ".");
    show(banner, true);
  }

  function failed(where, error) {
    const live = $("live");
    live.classList.add("stale");
    live.textContent = "not updating";
    live.title = `${where}: ${error.message}`;
  }

  // -- clock ----------------------------------------------------------------------------------
  async function loadClock() {
    const clock = await api("_fake/clock");
    if (!changed("clock", clock)) return;
    $("clock-now").textContent = clock.now;
    const scale = clock.mode === "scaled" ? ` x${clock.scale}` : "";
    $("clock-mode").textContent = `${clock.mode} clock${scale} · epoch_ms ${clock.epoch_ms}`;
  }

  async function advance(seconds) {
    const note = $("clock-error");
    show(note, false);
    try {
      await api("_fake/clock", { method: "POST", body: { advance_seconds: seconds } });
    } catch (error) {
      note.textContent = error.message;
      show(note, true);
    }
    await refresh(true);
  }

  // -- journal --------------------------------------------------------------------------------
  async function loadJournal() {
    const journal = await api(`_fake/journal?limit=${JOURNAL_LIMIT}`);
    state.entries = journal.entries || [];
    state.total = journal.total || 0;
    renderJournal();
  }

  function statusMatcher(text) {
    const parts = text.split(/[\s,]+/).filter(Boolean);
    if (!parts.length) return () => true;
    // "404", "4xx", "4" (a prefix), "2xx,3xx": digits stand for themselves, x or * for any digit
    const patterns = parts.map((part) => new RegExp(`^${[...part].map((c) => (/\d/.test(c) ? c : /[xX*]/.test(c) ? "\\d" : "")).join("")}`));
    return (status) => patterns.some((pattern) => pattern.test(String(status)));
  }

  function pathMatcher(text) {
    const wanted = text.trim();
    if (!wanted) return () => true;
    if (/[*?]/.test(wanted)) {
      const source = wanted.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
      const glob = new RegExp(`^${source}$`);
      return (entry) => glob.test(entry.path);
    }
    return (entry) => `${entry.path}?${entry.query}`.includes(wanted);
  }

  function filteredEntries() {
    const method = $("filter-method").value;
    const byPath = pathMatcher($("filter-path").value);
    const byStatus = statusMatcher($("filter-status").value);
    const warningsOnly = $("filter-warnings").checked;
    return state.entries.filter((entry) => (!method || entry.method === method) && byPath(entry)
      && byStatus(entry.status) && (!warningsOnly || (entry.warnings || []).length));
  }

  function renderJournal() {
    const shown = filteredEntries().reverse();  // newest first
    const key = [shown, [...state.expanded], state.marked];
    if (!changed("journal", key)) return;
    const previous = state.lastSeq;
    const rows = [];
    for (const entry of shown) {
      const fresh = previous !== null && entry.seq > previous;
      const open = state.expanded.has(entry.seq);
      const classes = ["entry", fresh ? "fresh" : "", state.marked === entry.seq ? "marked" : ""].join(" ").trim();
      rows.push(el("tr", { class: classes, "data-seq": entry.seq, "aria-expanded": String(open),
        onclick: () => toggleEntry(entry.seq) },
        el("td", { class: "mono", text: entry.seq }),
        el("td", { class: "mono nowrap", text: entry.time }),
        el("td", { class: "method", text: entry.method }),
        el("td", { class: "path" }, breakable(entry.query ? `${entry.path}?${entry.query}` : entry.path)),
        el("td", { class: `status s${String(entry.status)[0]}` }, String(entry.status), answeredBy(entry)),
        el("td", {}, (entry.warnings || []).map((warning) => el("div", { class: "mono", text: warning })))));
      if (open) rows.push(el("tr", { class: "details" }, el("td", { colspan: 6 }, entryDetails(entry))));
    }
    $("journal-rows").replaceChildren(...rows);
    show($("journal-empty"), !shown.length);
    const kept = state.entries.length;
    $("journal-count").textContent = `${state.total} received` + (state.total > kept ? `, the last ${kept} here` : "");
    const newest = state.entries.length ? state.entries[state.entries.length - 1].seq : 0;
    state.lastSeq = Math.max(previous || 0, newest);
  }

  // A path wraps after its slashes, question mark and ampersands, never inside a word.
  function breakable(text) {
    return String(text).split(/(?<=[/?&])/).flatMap((part, index) => (index ? [el("wbr"), part] : [part]));
  }

  // a fault or stub rule that answered (the journal's answered_by), as a badge after the status
  function answeredBy(entry) {
    const by = entry.answered_by;
    if (!by) return null;
    return [" ", el("span", { class: "badge", title: `answered by ${by.kind} ${by.id}${by.effect ? ` (${by.effect})` : ""}`,
      "data-answered-by": `${by.kind} ${by.id}`, text: `${by.kind} ${by.id}` })];
  }

  function toggleEntry(seq) {
    if (state.expanded.has(seq)) state.expanded.delete(seq); else state.expanded.add(seq);
    renderJournal();
  }

  // The journal's summary fields; anything else an entry carries (the request's and the answer's
  // headers and bodies, once the journal keeps them) is drawn below them as it comes.
  const SUMMARY = new Set(["seq", "time", "epoch_ms", "method", "path", "query", "status", "warnings"]);

  function entryDetails(entry) {
    const box = el("div");
    box.append(facts([["seq", entry.seq], ["time", entry.time], ["epoch_ms", entry.epoch_ms],
      ["query", entry.query || "(none)"], ["rules broken", (entry.warnings || []).join("; ") || "none"]]));
    const extra = Object.keys(entry).filter((key) => !SUMMARY.has(key));
    const ordered = ["request", "response"].filter((key) => key in entry)
      .concat(extra.filter((key) => key !== "request" && key !== "response"));
    for (const key of ordered) box.append(message(key, entry[key]));
    if (!ordered.length) {
      box.append(el("p", { class: "muted", text: "Headers and bodies of this entry are no longer kept: the "
        + "journal's byte budget (--journal-bytes) drops the oldest entries' details first." }));
    }
    return box;
  }

  function message(title, value) {
    const box = el("div", { class: "message" }, el("h4", { text: title }));
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      box.append(el("pre", { text: pretty(value) }));
      return box;
    }
    const scalars = [];
    const blocks = [];
    for (const [key, part] of Object.entries(value)) {
      if (key === "headers") blocks.unshift(headers(part));
      else if (key === "body") blocks.push(el("div", {}, el("div", { class: "muted", text: "body" }), el("pre", { text: pretty(part) })));
      else if (part !== null && typeof part === "object") blocks.push(el("div", {}, el("div", { class: "muted", text: key }), el("pre", { text: pretty(part) })));
      else scalars.push([key, part]);
    }
    if (scalars.length) box.append(facts(scalars));
    box.append(...blocks);
    return box;
  }

  function headers(value) {
    let pairs = [];
    if (Array.isArray(value)) pairs = value.map((item) => (Array.isArray(item) ? item : [item.name, item.value]));
    else if (value && typeof value === "object") pairs = Object.entries(value);
    return el("div", {}, el("div", { class: "muted", text: "headers" }),
      facts(pairs.map(([name, text]) => [name, Array.isArray(text) ? text.join(", ") : text])));
  }

  function pretty(value) {
    if (typeof value === "string") {
      try {
        const parsed = JSON.parse(value);
        if (parsed !== null && typeof parsed === "object") return JSON.stringify(parsed, null, 2);
      } catch (_) { /* text stays text */ }
      return value;
    }
    return JSON.stringify(value, null, 2);
  }

  function facts(pairs) {
    return el("dl", { class: "kv" }, pairs.flatMap(([label, value]) => [el("dt", { text: label }), el("dd", {}, cell(value))]));
  }

  function markEntry(seq) {
    for (const id of ["filter-method", "filter-path", "filter-status"]) $(id).value = "";
    $("filter-warnings").checked = false;
    state.marked = seq;
    state.expanded.add(seq);
    renderJournal();
    const row = document.querySelector(`#journal-rows tr[data-seq="${seq}"]`);
    if (row) row.scrollIntoView({ block: "center", behavior: "smooth" });
  }

  // -- verdicts -------------------------------------------------------------------------------
  async function loadVerdicts() {
    const report = await api("_fake/verdicts");
    if (!changed("verdicts", report)) return;
    const verdicts = report.verdicts || [];
    $("verdict-count").textContent = verdicts.length
      ? `${verdicts.length} rule${verdicts.length === 1 ? "" : "s"}, ${report.offences} offence${report.offences === 1 ? "" : "s"}`
      : "";
    const list = verdicts.map((verdict) => el("div", { class: `verdict sev-${verdict.severity}`, "data-rule": verdict.id },
      el("div", {}, el("span", { class: "sev", text: verdict.severity }), " ",
        el("span", { class: "rule mono", text: verdict.id }), " ",
        el("span", { class: "muted", text: verdict.count === 1 ? "once" : `${verdict.count} times` })),
      el("div", { text: verdict.explanation }),
      el("div", { class: "source", text: `source: ${verdict.source}` }),
      offence("first", verdict.first),
      verdict.count > 1 ? offence("last", verdict.last) : null));
    if (!list.length) list.push(el("p", { class: "muted", text: "No client rule broken." }));
    $("verdict-list").replaceChildren(...list);
  }

  function offence(label, found) {
    if (!found) return null;
    const query = found.query ? `?${found.query}` : "";
    const line = el("div", { class: "offence" }, `${label}: `,
      el("span", { class: "mono", text: `${found.method} ${found.path}${query} -> ${found.status}` }),
      ` at ${found.time || ""}`);
    if (found.seq) {
      line.append(" (", el("button", { type: "button", class: "link", text: `journal #${found.seq}`,
        onclick: () => markEntry(found.seq) }), ")");
    }
    if (found.detail) line.append(el("div", { class: "muted", text: found.detail }));
    return line;
  }

  // -- faults ---------------------------------------------------------------------------------
  async function loadFaults() {
    const { faults = [] } = (await api("_fake/faults")) || {};
    if (!changed("faults", faults)) return;
    $("fault-count").textContent = faults.length ? String(faults.length) : "";
    show($("faults-empty"), !faults.length);
    show($("fault-table"), faults.length > 0);
    $("fault-rows").replaceChildren(...faults.map((fault) => el("tr", { "data-fault": fault.id },
      el("td", { class: "mono", text: fault.id }),
      el("td", { class: "method", text: fault.method }),
      el("td", { class: "path" }, breakable(fault.path), criteria(fault.request)),
      el("td", { text: describeFault(fault) }),
      el("td", { text: left(fault) }),
      el("td", { class: "num", text: fault.fired }),
      el("td", { class: "act" }, el("button", { type: "button", class: "quiet", text: "remove",
        onclick: () => act(`_fake/faults/${encodeURIComponent(fault.id)}`, "DELETE", null, "fault-error") })))));
  }

  function describeFault(fault) {
    const parts = [];
    if (fault.drop) parts.push("drop the connection");
    if (fault.status !== null) parts.push(`answer ${fault.status}`);
    if (fault.latency_ms) parts.push(`wait ${fault.latency_ms} ms`);
    if (fault.probability < 1) parts.push(`p=${fault.probability}`);
    return parts.join(", ") || "-";
  }

  function faultSpec(form) {
    const data = new FormData(form);
    const spec = { method: data.get("method") || "*", path: data.get("path") || "*" };
    for (const name of ["status", "times"]) if (data.get(name)) spec[name] = parseInt(data.get(name), 10);
    if (data.get("latency_ms")) spec.latency_ms = parseFloat(data.get("latency_ms"));
    if (data.get("drop")) spec.drop = true;
    const body = data.get("body");
    if (body) {
      try { spec.body = JSON.parse(body); } catch (_) { spec.body = body; }
    }
    const request = jsonField(data.get("request"), "only requests with");
    if (request) spec.request = request;
    return spec;
  }

  const left = (rule) => (rule.spent ? "spent" : rule.times === null ? "always" : rule.times);

  function criteria(request) {
    const shown = Object.keys(request || {}).filter((key) => key !== "method" && key !== "path");
    if (!shown.length) return null;
    return el("div", { class: "muted", text: shown.map((key) => `${key} ${JSON.stringify(request[key])}`).join("; ") });
  }

  // a field that holds a JSON object (the criteria): refused here with a clear message, not sent
  function jsonField(text, label) {
    if (!text || !text.trim()) return null;
    let value;
    try { value = JSON.parse(text); } catch (_) { value = null; }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new Error(`${label}: a JSON object of criteria, such as {"query": {"page": "2"}}`);
    }
    return value;
  }

  // -- stubs ----------------------------------------------------------------------------------
  async function loadStubs() {
    const { stubs = [], scenarios = {} } = (await api("_fake/stubs")) || {};
    if (!changed("stubs", [stubs, scenarios])) return;
    $("stub-count").textContent = stubs.length ? String(stubs.length) : "";
    show($("stubs-empty"), !stubs.length);
    show($("stub-table"), stubs.length > 0);
    $("stub-rows").replaceChildren(...stubs.map((stub) => {
      const request = stub.request || {};
      const answers = stub.responses || [stub.response || {}];
      return el("tr", { "data-stub": stub.id },
        el("td", { class: "mono", text: stub.id }),
        el("td", { class: "path" }, `${request.method || "*"} `, breakable(pathText(request.path)), criteria(request)),
        el("td", { text: answers.map((answer) => answer.status || 200).join(" then ")
          + (stub.scenario ? ` (scenario ${stub.scenario})` : "") }),
        el("td", { text: stub.place }),
        el("td", { text: left(stub) }),
        el("td", { class: "num", text: stub.fired }),
        el("td", { class: "act" }, el("button", { type: "button", class: "quiet", text: "remove",
          onclick: () => act(`_fake/stubs/${encodeURIComponent(stub.id)}`, "DELETE", null, "stub-error") })));
    }));
    const named = Object.entries(scenarios);
    $("stub-scenarios").textContent = named.length
      ? `Scenarios: ${named.map(([name, now]) => `${name} is ${now}`).join("; ")}` : "";
    show($("stub-scenarios"), named.length > 0);
  }

  const pathText = (path) => (path === undefined ? "*" : typeof path === "string" ? path : JSON.stringify(path));

  function stubSpec(form) {
    const data = new FormData(form);
    const request = jsonField(data.get("request"), "only requests with") || {};
    if (data.get("method") && data.get("method") !== "*") request.method = data.get("method");
    if (data.get("path")) request.path = data.get("path");
    const response = {};
    if (data.get("status")) response.status = parseInt(data.get("status"), 10);
    const body = data.get("body");
    if (body) {
      try { response.json = JSON.parse(body); } catch (_) { response.body = body; }
    }
    const spec = { request, response, place: data.get("place") || "before" };
    if (data.get("times")) spec.times = parseInt(data.get("times"), 10);
    return spec;
  }

  function submitted(form, path, toSpec, note) {
    let spec;
    try {
      spec = toSpec(form);
    } catch (error) {
      $(note).textContent = error.message;
      show($(note), true);
      return;
    }
    act(path, "POST", spec, note);
  }

  // -- worlds ---------------------------------------------------------------------------------
  async function loadWorlds() {
    const box = $("worlds-here");
    const info = state.info;
    if (!info) return;
    if (info.world !== null) {
      if (!changed("worlds", info.world)) return;
      $("world-count").textContent = "";
      box.replaceChildren(el("p", {}, "This is the world ", el("code", { text: info.world }),
        " of this fake: its own state, clock, faults and journal. Worlds do not nest."),
        el("p", {}, el("a", { href: defaultWorldPage(), text: "The default world's dashboard" })));
      return;
    }
    if (!info.worlds) {
      if (changed("worlds", "none")) box.replaceChildren(el("p", { class: "muted", text: "This fake holds no worlds." }));
      return;
    }
    const listing = await api("_fake/worlds");
    if (!changed("worlds", listing)) return;
    const worlds = listing.worlds || [];
    $("world-count").textContent = worlds.length ? String(worlds.length) : "";
    const rows = worlds.map((world) => el("tr", { "data-world": world.id },
      el("td", { class: "mono" }, el("a", { href: worldPage(world.id), text: world.id })),
      el("td", { class: "num", text: world.requests }),
      el("td", { class: "mono", text: world.clock ? world.clock.now : "" }),
      el("td", { class: "mono", title: world.last_used, text: wallTime(world.last_used) }),
      el("td", { class: "act" }, el("button", { type: "button", class: "quiet", text: "delete",
        onclick: () => act(`_fake/worlds/${encodeURIComponent(world.id)}`, "DELETE", null, "world-error") }))));
    const limit = listing.max_worlds ? ` (at most ${listing.max_worlds})` : "";
    show($("world-open"), true);  // the form stays put: the listing above it is redrawn as worlds change
    box.replaceChildren(worlds.length
      ? el("div", { class: "scroll-x" }, el("table", { class: "grid" }, el("thead", {}, el("tr", {},
        ["id", "requests", "its clock", "last used (wall)", ""].map((name) => el("th", { text: name })))),
      el("tbody", {}, rows)))
      : el("p", { class: "muted", text: `No world yet${limit}: a client opens one by sending to /_w/<id>/ or X-Fake-World.` }));
  }

  // a wall-clock instant of today as its time of day (the full instant is the cell's title)
  const wallTime = (text) => {
    if (!text) return "";
    const today = new Date().toISOString().slice(0, 10);
    return String(text).startsWith(today) ? String(text).slice(11).replace(/\.\d+Z$/, "Z") : String(text);
  };

  const worldPage = (id) => `${base}/_w/${encodeURIComponent(id)}/_fake/ui`;
  const defaultWorldPage = () => `${base.slice(0, base.length - `/_w/${state.info.world}`.length)}/_fake/ui`;

  function openWorld(event) {
    event.preventDefault();
    const id = $("world-id").value.trim();
    if (WORLD_ID.test(id)) location.assign(worldPage(id));
  }

  // -- the service's own panels ---------------------------------------------------------------
  async function loadPanels() {
    const found = await api("_fake/ui/panels");
    if (!state.info) describeFake(found);
    state.info = found;
    if (!changed("panels", found.panels)) return;
    const panels = found.panels || [];
    $("panels").replaceChildren(...panels.map(renderPanel));
  }

  function describeFake(found) {
    $("service").textContent = found.service;
    $("service-title").textContent = found.title;
    document.title = `${found.service}${found.world ? ` (world ${found.world})` : ""} · contract-fakes`;
    $("link-openapi").href = url("openapi.json");
    if (found.gateway) {  // served through the gateway: its root lists every fake on the port
      $("link-gateway").href = found.gateway;
      show($("link-gateway"), true);
    }
    $("link-state").href = url("_fake/state");
    if (found.world !== null) {
      const badge = $("world-badge");
      badge.textContent = `world ${found.world}`;
      show(badge, true);
      state.info = found;
      $("link-default").href = defaultWorldPage();
      show($("link-default"), true);
    }
  }

  function renderPanel(panel) {
    const wide = panel.kind === "timeline" || (panel.kind === "table" && (panel.columns || []).length > 5);
    const card = el("section", { class: `card panel${wide ? " wide" : ""}`, "data-kind": panel.kind, "data-title": panel.title },
      el("h2", { text: panel.title }));
    if (panel.note) card.append(el("p", { class: "note", text: panel.note }));
    try {
      if (panel.kind === "table") card.append(table(panel));
      else if (panel.kind === "timeline") card.append(timeline(panel));
      else if (panel.kind === "facts") card.append(facts(panel.facts || []));
      else if (panel.kind === "error") card.append(el("p", { class: "error", text: panel.message }));
      else card.append(el("pre", { text: pretty(panel) }));
    } catch (error) {
      card.append(el("p", { class: "error", text: `this panel could not be drawn: ${error.message}` }));
    }
    return card;
  }

  function table(panel) {
    const rows = panel.rows || [];
    if (!rows.length) return el("p", { class: "muted", text: "Nothing yet." });
    return el("div", { class: "table-wrap" }, el("table", { class: "grid" },
      el("thead", {}, el("tr", {}, (panel.columns || []).map((name) => el("th", { text: name })))),
      el("tbody", {}, rows.map((row) => el("tr", {}, row.map((value) => el("td", {}, cell(value))))))));
  }

  function cell(value) {
    if (value === null || value === undefined) return el("span", { class: "muted", text: "-" });
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value !== "object") return String(value);
    if (typeof value.time === "string") return el("span", { class: "mono", title: String(value.epoch_ms), text: value.time });
    if (typeof value.progress === "number") {
      const bar = el("div", { class: "bar" });
      bar.style.width = `${Math.round(value.progress * 100)}%`;
      return el("div", { class: "progress", role: "progressbar", "aria-valuenow": Math.round(value.progress * 100),
        "aria-valuemin": 0, "aria-valuemax": 100 }, bar, el("span", { class: "text", text: value.text || `${Math.round(value.progress * 100)}%` }));
    }
    if (typeof value.image === "string") {
      // through the control plane: the dashboard's looking must not show in the journal it shows
      return el("img", { class: "thumb", src: url(`_fake/ui/image?path=${encodeURIComponent(value.image)}`),
        alt: value.alt || "", loading: "lazy" });
    }
    return el("code", { text: JSON.stringify(value) });
  }

  function timeline(panel) {
    const lanes = panel.lanes || [];
    const now = panel.now_ms;
    let low = now;
    let high = now;
    for (const lane of lanes) {
      for (const span of lane.spans || []) {
        low = Math.min(low, span.start_ms);
        high = Math.max(high, span.end_ms);
      }
    }
    if (!lanes.length) return el("p", { class: "muted", text: "Nothing yet." });
    if (high <= low) high = low + 60000;
    const padding = (high - low) * 0.02;
    low -= padding;
    high += padding;
    const at = (ms) => `${((ms - low) / (high - low)) * 100}%`;
    const box = el("div", { class: "timeline" });
    let group = null;
    for (const lane of lanes) {
      if (lane.group && lane.group !== group) box.append(el("div", { class: "group", text: lane.group }));
      group = lane.group;
      const track = el("div", { class: "track" });
      for (const span of lane.spans || []) {
        const stage = span.end_ms <= now ? "done" : span.start_ms <= now ? "running" : "waiting";
        const bar = el("div", { class: `span ${stage}`, title: `${span.label || lane.label}: ${span.start} -> ${span.end} (${stage})` });
        bar.style.left = at(span.start_ms);
        bar.style.width = `${((span.end_ms - span.start_ms) / (high - low)) * 100}%`;
        track.append(bar);
      }
      const line = el("div", { class: "now", title: `now: ${panel.now}` });
      line.style.left = at(now);
      track.append(line);
      box.append(el("div", { class: "lane" }, el("div", { class: "lane-label", title: lane.label, text: lane.label }), track));
    }
    box.append(el("div", { class: "axis" }, el("div", { text: `now ${panel.now}` }),
      el("div", { class: "ends" }, el("span", { class: "mono", text: iso(low) }), el("span", { class: "mono", text: iso(high) }))));
    box.append(el("div", { class: "legend" }, ...[["done", "done"], ["running", "running"], ["waiting", "waiting"], ["nowline", "now"]]
      .map(([kind, label]) => el("span", {}, el("i", { class: kind }), label))));
    return box;
  }

  // -- reset ----------------------------------------------------------------------------------
  // Two clicks: the first arms the button for a few seconds, the second resets (no dialog).
  let resetArmed = null;

  async function reset() {
    const button = $("reset");
    if (resetArmed === null) {
      button.textContent = "Click again to reset";
      resetArmed = setTimeout(disarmReset, 4000);
      return;
    }
    disarmReset();
    const verdicts = $("reset-verdicts").checked;
    const note = $("reset-note");
    try {
      const answer = await api("_fake/reset", { method: "POST", body: { verdicts } });
      note.textContent = `Reset to the seeded state at ${answer.clock.now}; verdicts ${answer.verdicts_cleared ? "forgotten" : "kept"}.`;
      note.classList.remove("error");
    } catch (error) {
      note.textContent = error.message;
      note.classList.add("error");
    }
    show(note, true);
    state.expanded.clear();
    state.marked = null;
    await refresh(true);
  }

  function disarmReset() {
    clearTimeout(resetArmed);
    resetArmed = null;
    $("reset").textContent = "Reset this fake";
  }

  // -- actions and the refresh loop -----------------------------------------------------------
  async function act(path, method, body, errorId) {
    const note = errorId ? $(errorId) : null;
    if (note) show(note, false);
    try {
      await api(path, { method, body: body === null ? undefined : body });
    } catch (error) {
      if (note) {
        note.textContent = error.message;
        show(note, true);
      }
    }
    await refresh(true);
  }

  const FAST = [["clock", loadClock], ["journal", loadJournal], ["verdicts", loadVerdicts]];
  const SLOW = [["panels", loadPanels], ["faults", loadFaults], ["stubs", loadStubs]];

  async function refresh(everything) {
    if (state.signedOut) return;
    const parts = everything ? FAST.concat(SLOW) : FAST;
    let ok = true;
    const load = ([name, loader]) => loader().catch((error) => { ok = false; failed(name, error); });
    await Promise.all(parts.map(load));
    if (everything) await load(["worlds", loadWorlds]);  // after the panels: they say whether this is a world
    if (ok) {
      const live = $("live");
      live.classList.remove("stale");
      live.textContent = "live";
      live.title = `updated ${new Date().toLocaleTimeString()}`;
    }
  }

  async function loop() {
    if (!document.hidden && !state.signedOut) await refresh(state.tick % 2 === 0);
    state.tick += 1;
    setTimeout(loop, TICK_MS);
  }

  function wire() {
    for (const button of document.querySelectorAll("[data-advance]")) {
      button.addEventListener("click", () => advance(Number(button.dataset.advance)));
    }
    $("clock-custom").addEventListener("submit", (event) => {
      event.preventDefault();
      const seconds = Number($("clock-amount").value) * Number($("clock-unit").value);
      if (Number.isFinite(seconds) && seconds >= 0) advance(seconds);
    });
    for (const id of ["filter-method", "filter-path", "filter-status", "filter-warnings"]) {
      $(id).addEventListener("input", () => { state.marked = null; renderJournal(); });
    }
    $("journal-filter").addEventListener("submit", (event) => event.preventDefault());
    $("journal-clear").addEventListener("click", () => act("_fake/journal", "DELETE", null));
    $("verdicts-clear").addEventListener("click", () => act("_fake/verdicts", "DELETE", null));
    $("reset").addEventListener("click", reset);
    $("faults-clear").addEventListener("click", () => act("_fake/faults", "DELETE", null, "fault-error"));
    $("world-open").addEventListener("submit", openWorld);
    $("fault-form").addEventListener("submit", (event) => {
      event.preventDefault();
      submitted(event.target, "_fake/faults", faultSpec, "fault-error");
    });
    $("stubs-clear").addEventListener("click", () => act("_fake/stubs", "DELETE", null, "stub-error"));
    $("stub-form").addEventListener("submit", (event) => {
      event.preventDefault();
      submitted(event.target, "_fake/stubs", stubSpec, "stub-error");
    });
    document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(true); });
  }

  wire();
  loop();
})();
