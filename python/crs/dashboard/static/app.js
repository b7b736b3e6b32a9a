// crs dashboard: plain DOM, no framework, no CDN. Every value from the server is shown with
// textContent or as an SVG text node, never parsed as HTML: tool arguments are attacker text.
"use strict";

const params = new URLSearchParams(location.search);
const token = params.get("token") || "";
const state = { project: params.get("project") || "", session: params.get("session") || "", source: null };

function api(path, opts = {}) {
  const headers = Object.assign({ "Accept": "application/json" }, opts.headers || {});
  if (token) headers["X-CRS-Token"] = token;
  return fetch(path, Object.assign({}, opts, { headers })).then((r) => {
    if (!r.ok) throw new Error(path + ": HTTP " + r.status);
    return r.json();
  });
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  return node;
}

function age(ms) {
  const s = Math.max(0, (Date.now() - ms) / 1000);
  if (s < 90) return Math.round(s) + " s";
  if (s < 5400) return Math.round(s / 60) + " min";
  if (s < 129600) return Math.round(s / 3600) + " h";
  return Math.round(s / 86400) + " d";
}

async function loadProjects() {
  const data = await api("api/projects");
  const list = document.getElementById("projects");
  list.replaceChildren();
  for (const p of data.projects) {
    const sessions = el("ul");
    for (const s of p.sessions) {
      const a = el("a", { href: "#", text: s.session_id + " (" + s.calls + ")", "data-session": s.session_id,
                          "data-project": p.key });
      if (p.key === state.project && s.session_id === state.session) a.classList.add("current");
      a.addEventListener("click", (ev) => { ev.preventDefault(); select(p.key, s.session_id); });
      sessions.append(el("li", { class: "session" }, a));
    }
    list.append(el("li", { class: "project", "data-project": p.key },
                   el("span", { text: p.path || p.key, title: p.key }), sessions));
  }
  if (!state.session && data.projects.length && data.projects[0].sessions.length) {
    select(data.projects[0].key, data.projects[0].sessions[0].session_id);
  }
}

function select(project, session) {
  state.project = project; state.session = session;
  const q = new URLSearchParams({ project, session }); if (token) q.set("token", token);
  history.replaceState(null, "", "?" + q.toString());
  for (const a of document.querySelectorAll("nav a")) {
    a.classList.toggle("current", a.dataset.project === project && a.dataset.session === session);
  }
  listen();
  return render();
}

// One render at a time, and one more after it when asked meanwhile: two overlapping renders
// (the one after a forget, the live feed's) could finish out of order and leave the page on
// the older data; the promise resolves once a render begun after the call has finished.
let rendering = null;
let renderAgain = false;
function render() {
  if (rendering) { renderAgain = true; return rendering; }
  rendering = (async () => {
    try {
      do { renderAgain = false; await renderOnce(); } while (renderAgain);
    } finally { rendering = null; }
  })();
  return rendering;
}

async function renderOnce() {
  if (!state.project || !state.session) return;
  const path = "api/projects/" + encodeURIComponent(state.project) + "/sessions/" + encodeURIComponent(state.session);
  const data = await api(path);
  document.getElementById("empty").hidden = true;
  document.getElementById("session").hidden = false;
  document.getElementById("session-title").textContent = "Session " + data.session_id;
  renderSummary(data); renderTimeline(data); renderLearned(data); renderGraph(data.graph);
  document.body.dataset.position = String(data.position);
}

function renderSummary(data) {
  const box = document.getElementById("summary");
  box.replaceChildren();
  for (const [k, v] of Object.entries(data.counts)) box.append(el("span", { class: "pill", text: k + ": " + v }));
}

function renderTimeline(data) {
  const body = document.querySelector("#timeline tbody");
  body.replaceChildren();
  const spanOf = new Map();
  for (const sp of data.spans) for (const step of sp.steps) spanOf.set(step, sp.kind);
  for (const c of data.calls) {
    const kind = spanOf.get(c.step);
    const row = el("tr", { class: kind ? "span-" + kind : "", "data-step": String(c.step), "data-action": c.action,
                            "data-code": c.code },
      el("td", { text: String(c.step) }),
      el("td", { text: c.tool }),
      el("td", { class: "args", text: c.args }),
      el("td", { class: c.kind === "failure" || c.kind === "transient" ? "result failed" : "result",
                 text: c.result }),
      el("td", {}, el("span", { class: "badge " + (c.code === "polling" ? "polling" : c.action),
                               text: c.code === "polling" ? "polling" : c.action })),
      el("td", { text: c.reason }));
    body.append(row);
  }
}

function renderLearned(data) {
  const body = document.querySelector("#learned tbody");
  body.replaceChildren();
  document.getElementById("learned-empty").hidden = data.learned.length > 0;
  for (const f of data.learned) {
    const btn = el("button", { class: "forget", text: "forget", "data-id": f.id });
    btn.addEventListener("click", async () => {
      btn.disabled = true;
      await api("api/projects/" + encodeURIComponent(state.project) + "/forget/" + encodeURIComponent(f.id),
                { method: "POST", headers: { "X-CRS-Request": "1" } });
      await render();
    });
    body.append(el("tr", { "data-id": f.id }, el("td", { text: f.tool }), el("td", { text: f.error }),
                   el("td", { text: f.fingerprint.slice(0, 12) }), el("td", { text: age(f.created_at) }),
                   el("td", {}, btn)));
  }
}

function renderGraph(graph) {
  const root = document.getElementById("graph");
  root.replaceChildren();
  const cyc = new Set(graph.cycles.flat());
  const label = new Map(graph.nodes.map((node) => [node.id, node.label]));
  document.getElementById("graph-cycles").textContent = graph.cycles.length
    ? graph.cycles.length + " cycle(s): " +
      graph.cycles.map((c) => c.map((id) => label.get(id) || id).join(" → ")).join("; ")
    : "No cycle.";
  const w = +root.getAttribute("width"), h = +root.getAttribute("height");
  const n = graph.nodes.length, r = Math.min(w, h) / 2 - 60, pos = new Map();
  graph.nodes.forEach((node, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, n) - Math.PI / 2;
    pos.set(node.id, [w / 2 + r * Math.cos(a), h / 2 + r * Math.sin(a)]);
  });
  const defs = svg("defs"), marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "18", refY: "5",
    markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse" });
  marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#9a9aa0" }));
  defs.append(marker); root.append(defs);
  for (const [a, b] of graph.edges) {
    const [x1, y1] = pos.get(a), [x2, y2] = pos.get(b);
    const cls = cyc.has(a) && cyc.has(b) ? "edge cycle" : "edge";
    const d = a === b ? `M ${x1} ${y1} c 30 -40 50 0 0 0` : `M ${x1} ${y1} L ${x2} ${y2}`;
    root.append(svg("path", { d, class: cls, "marker-end": "url(#arrow)" }));
  }
  for (const node of graph.nodes) {
    const [x, y] = pos.get(node.id);
    const g = svg("g", { class: cyc.has(node.id) ? "node cycle" : "node" });
    g.append(svg("circle", { cx: x, cy: y, r: 9 }));
    const t = svg("text", { x: x + 12, y: y + 4 }); t.textContent = node.label; g.append(t);
    root.append(g);
  }
}

function listen() {
  if (state.source) state.source.close();
  const q = new URLSearchParams({ project: state.project }); if (token) q.set("token", token);
  const live = document.getElementById("live");
  const src = new EventSource("api/events?" + q.toString());
  state.source = src;
  src.addEventListener("open", () => { live.textContent = "live"; live.className = "live on"; });
  src.addEventListener("error", () => { live.textContent = "reconnecting"; live.className = "live off"; });
  src.addEventListener("change", () => {
    render().then(() => loadProjects()).catch(console.error);
  });
}

loadProjects().then(() => { if (state.project && state.session) select(state.project, state.session); })
  .catch((e) => { document.getElementById("empty").textContent = String(e); });
