// The sidebar page: scope chips, the plan beside them, the turn streamed
// from the server (Server-Sent Events), the answer and its sources.
// Everything from the server is data: it is put in the page with
// textContent and checked hrefs only, never as HTML.
"use strict";

const token = document.querySelector('meta[name="sidebar-token"]').content;
const $ = (id) => document.getElementById(id);

const state = {
  papers: [],
  scope: { currentPaper: "", selections: [], mentions: [] },
  running: null, // the running turn's id
  turns: 0,
  planSeq: 0,
  lastSession: null, // the session view of the last turn
  next: null, // how the next turn would get its session
};

// el builds an element: attributes (text and class are special), then
// children (strings become text nodes).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") e.textContent = v;
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    e.append(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return e;
}

// safeHref accepts only what the server hands out: the demo's own
// documents, the two external citation forms, and Zotero's URIs of an
// item (they open Zotero at the page).
function safeHref(h) {
  if (typeof h !== "string") return null;
  if (h.startsWith("/doc/")) return h;
  if (h.startsWith("https://doi.org/") || h.startsWith("https://arxiv.org/abs/")) return h;
  if (/^zotero:\/\/(select|open-pdf)\/(library|groups\/[1-9][0-9]*)\/items\/[A-Z0-9]{8}(\?page=[1-9][0-9]*(&annotation=[A-Z0-9]{8})?)?$/.test(h)) return h;
  // An EPUB location: the CFI percent-encoded but for unreserved characters.
  if (/^zotero:\/\/open-pdf\/(library|groups\/[1-9][0-9]*)\/items\/[A-Z0-9]{8}\?cfi=epubcfi%28[A-Za-z0-9%._~-]{1,3000}%29$/.test(h)) return h;
  return null;
}

function linkTo(l, text, attrs) {
  const href = l && safeHref(l.href);
  if (!href) return el("span", { class: "uri", text: text || (l && l.uri) || "(no link)" });
  return el("a", Object.assign({ href, target: "_blank", rel: "noopener noreferrer", class: "uri" }, attrs || {}), text || l.uri);
}

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Sidebar-Token": token },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(data.error || r.statusText);
  return data;
}

function clip(s, n) {
  s = String(s || "");
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

// ---- Scope ----

function paperTitle(ref) {
  const p = state.papers.find((p) => p.ref === ref);
  return p ? p.title : ref;
}

function renderChips() {
  const ul = $("chips");
  ul.replaceChildren();
  const chip = (kind, label, title, remove, testid) => {
    const li = el("li", { class: "chip chip-" + kind, "data-testid": testid || "chip", title: title || label });
    li.append(el("span", { class: "chip-kind", text: kind }), el("span", { class: "chip-label", text: label }));
    li.append(el("button", { type: "button", class: "chip-x", "aria-label": "Remove " + kind + " " + label, text: "×" }));
    li.lastChild.addEventListener("click", remove);
    ul.append(li);
  };
  const sc = state.scope;
  if (sc.currentPaper) {
    chip("paper", clip(paperTitle(sc.currentPaper), 48), sc.currentPaper + " — the current paper", () => setPaper(""), "chip-paper");
  }
  sc.selections.forEach((s, i) => {
    chip("selection", "p. " + (s.page || 1) + " “" + clip(s.text, 40) + "”", s.text, () => {
      sc.selections.splice(i, 1);
      scopeChanged();
    }, "chip-selection");
  });
  sc.mentions.forEach((m, i) => {
    chip("@", m, "@-mentioned: " + m, () => {
      sc.mentions.splice(i, 1);
      scopeChanged();
    }, "chip-mention");
  });
  if (!ul.children.length) ul.append(el("li", { class: "muted", text: "Nothing in scope: the turn would be prompt-only." }));
}

function scopeChanged() {
  renderChips();
  markSelections();
  refreshPlan();
}

async function setPaper(ref) {
  state.scope.currentPaper = ref;
  // A selection belongs to the paper it was made in.
  state.scope.selections = state.scope.selections.filter((s) => !s.path || !ref || s.path.startsWith(ref + "/"));
  $("paper-select").value = ref;
  scopeChanged();
  await loadDoc(ref);
}

// ---- Document view ----

async function loadDoc(ref) {
  const view = $("doc-view");
  const open = $("paper-open");
  open.hidden = true;
  if (!ref) {
    view.replaceChildren(el("p", { class: "muted", text: "No current paper. Pick one above to read it and select passages." }));
    return;
  }
  view.replaceChildren(el("p", { class: "muted", text: "Loading " + ref + "…" }));
  try {
    const d = await api("/api/text?paper=" + encodeURIComponent(ref));
    if (state.scope.currentPaper !== ref) return;
    view.replaceChildren(el("h2", { class: "doc-title", text: d.title || ref }));
    view.dataset.path = d.path || "";
    if (d.href && safeHref(d.href)) {
      open.href = d.href;
      open.hidden = false;
    }
    for (const p of d.pages) {
      view.append(el("section", { class: "page", "data-page": p.page },
        el("h3", { text: "Page " + p.page }),
        el("p", { class: "page-text", text: p.text })));
    }
    if (d.note) view.append(el("p", { class: "muted", text: d.note }));
    markSelections();
  } catch (e) {
    view.replaceChildren(el("p", { class: "error", text: e.message }));
  }
}

// markSelections highlights, in the document view, the passages the
// scope's selections quote (white space does not matter).
function markSelections() {
  for (const m of document.querySelectorAll(".doc-view mark")) m.replaceWith(document.createTextNode(m.textContent));
  for (const p of document.querySelectorAll(".doc-view .page-text")) p.normalize();
  for (const s of state.scope.selections) {
    const words = s.text.split(/\s+/).filter(Boolean);
    if (!words.length) continue;
    const page = document.querySelector('.doc-view .page[data-page="' + (s.page || 1) + '"] .page-text');
    const pages = page ? [page] : [...document.querySelectorAll(".doc-view .page-text")];
    const re = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("\\s+"));
    for (const p of pages) {
      const node = p.firstChild;
      if (!node || node.nodeType !== 3) continue;
      const m = re.exec(node.data);
      if (!m) continue;
      const rest = node.splitText(m.index);
      rest.splitText(m[0].length);
      const mark = el("mark", { title: "a selection in the scope", text: rest.data });
      rest.replaceWith(mark);
      break;
    }
  }
}

// currentSelection returns the text selected in the document view and its
// page, or null.
function currentSelection() {
  const sel = window.getSelection();
  if (!sel || sel.isCollapsed || !sel.rangeCount) return null;
  const text = sel.toString().replace(/\s+/g, " ").trim();
  if (!text) return null;
  const node = sel.getRangeAt(0).startContainer;
  const elem = node.nodeType === 1 ? node : node.parentElement;
  const page = elem && elem.closest(".doc-view .page");
  if (!page) return null;
  return { text, page: Number(page.dataset.page) || 1 };
}

function updateSelectionButton() {
  const s = currentSelection();
  const b = $("add-selection");
  b.disabled = !s;
  b.textContent = s ? "Add selection (p. " + s.page + ", " + s.text.length + " chars)" : "Add selection";
}

function addSelection(s) {
  if (!s || !s.text) return;
  const sel = { text: s.text, page: s.page };
  const p = $("doc-view").dataset.path;
  if (s.fromDoc && p) sel.path = p;
  state.scope.selections.push(sel);
  if (s.fromDoc) window.getSelection().removeAllRanges();
  updateSelectionButton();
  scopeChanged();
}

// ---- Mentions (autocomplete from the vault tree) ----

const complete = { items: [], active: -1, seq: 0, query: null, pending: null };

// suggest asks for the suggestions of what is typed now; complete.pending
// settles once they are shown (or superseded), so that Enter pressed while
// they are on their way picks from them rather than from an older list.
function suggest() {
  complete.pending = fetchSuggestions();
  return complete.pending;
}

async function fetchSuggestions() {
  const input = $("mention-input");
  const q = input.value.trim().replace(/^@/, "");
  const seq = ++complete.seq;
  let items = [];
  try {
    // What the scope holds already is not offered again.
    const x = [state.scope.currentPaper, ...state.scope.mentions].filter(Boolean).map((m) => "&x=" + encodeURIComponent(m)).join("");
    items = await api("/api/complete?q=" + encodeURIComponent(q) + x);
  } catch (e) {
    items = [];
  }
  if (seq !== complete.seq) return;
  complete.query = q;
  complete.items = items;
  complete.active = items.length ? 0 : -1;
  renderSuggestions();
}

function renderSuggestions() {
  const list = $("mention-list");
  const input = $("mention-input");
  list.replaceChildren();
  complete.items.forEach((it, i) => {
    const li = el("li", { role: "option", id: "opt-" + i, class: i === complete.active ? "active" : "", "aria-selected": i === complete.active ? "true" : "false", "data-path": it.path },
      el("span", { class: "kind", text: it.kind === "directory" ? "folder" : it.kind }),
      el("span", { class: "p", text: it.path }),
      it.title ? el("span", { class: "t", text: it.title }) : null);
    li.addEventListener("mousedown", (e) => {
      e.preventDefault();
      pick(i);
    });
    list.append(li);
  });
  const open = complete.items.length > 0 && document.activeElement === input;
  list.hidden = !open;
  input.setAttribute("aria-expanded", open ? "true" : "false");
  if (complete.active >= 0) input.setAttribute("aria-activedescendant", "opt-" + complete.active);
  else input.removeAttribute("aria-activedescendant");
}

function pick(i) {
  const it = complete.items[i];
  if (it) addMention(it.path);
}

// mentionPath is a mention without its @, spaces or trailing slash, as
// the server compares them.
function mentionPath(p) {
  return String(p || "").trim().replace(/^@/, "").replace(/\/+$/, "");
}

// held is the paths the scope names: the current paper and the mentions.
function held() {
  return [state.scope.currentPaper, ...state.scope.mentions].map(mentionPath).filter(Boolean);
}

// addMention adds a vault path (as typed or picked) to the scope; the plan
// says when the resolver drops it.
function addMention(p) {
  p = mentionPath(p);
  if (!p) return;
  // One chip per path: a path the scope holds already (as a mention or as
  // the current paper) is not added again. (A path typed in full inside a
  // mentioned folder is the user's to add; the plan counts it once.)
  if (!held().includes(p)) state.scope.mentions.push(p);
  $("mention-input").value = "";
  complete.seq++;
  complete.items = [];
  renderSuggestions();
  scopeChanged();
}

// ---- Plan ----

async function refreshPlan() {
  const seq = ++state.planSeq;
  try {
    const p = await api("/api/plan", state.scope);
    if (seq !== state.planSeq) return;
    renderPlan(p);
  } catch (e) {
    if (seq === state.planSeq) $("plan-budget").textContent = "could not resolve: " + e.message;
  }
}

function renderPlan(out) {
  const p = out.plan;
  $("plan-mode").textContent = p.mode;
  $("plan-mode").className = "badge mode-" + p.mode;
  const src = $("plan-sources");
  src.replaceChildren();
  for (const s of p.sources || []) {
    src.append(el("li", { title: s.title || s.path }, el("span", { class: "kind", text: s.kind === "directory" ? "folder" : s.kind }), el("code", { text: s.path })));
  }
  if (!(p.sources || []).length) src.append(el("li", { class: "muted", text: "no sources: prompt-only" }));
  const b = p.budget;
  $("plan-budget").textContent = "budget: " + b.searchCards + " cards × " + b.cardChars + " chars per search · " + b.readChars + " chars per read · " + b.turnChars + " per turn · tools " + ((p.tools || []).join(", ") || "none");
  $("plan-fp").textContent = p.fingerprint.slice(0, 19) + "…";
  $("plan-fp").title = p.fingerprint;
  const dr = $("plan-dropped");
  dr.replaceChildren();
  for (const d of p.dropped || []) dr.append(el("li", {}, el("code", { text: d.path }), " dropped: " + d.reason));
  $("plan-prompt").textContent = out.prompt;
  state.next = out.next;
  renderSession();
}

// ---- Session line ----

function sessionText(v, turnNo) {
  const how = v.how === "live" ? "continued" : v.how === "resumed" ? "resumed" : v.how === "loaded" ? "loaded" : null;
  let s;
  if (!v.how) s = "Turn " + turnNo + ": " + (v.action === "resume" ? "continuing the session" : "opening a new session") + " (" + v.reason + ")…";
  else if (how) s = "Turn " + turnNo + " " + how + " session " + v.id + " (" + v.reason + ")";
  else s = "Turn " + turnNo + " opened a new session " + v.id + " (" + v.reason + ")";
  if (v.refusal) s += " — the previous one could not be continued: " + v.refusal;
  s += v.server ? " · agentero-context attached" : " · no tools (prompt-only)";
  if (v.handoff) s += " · the conversation so far was handed over";
  return s;
}

function renderSession() {
  const line = $("session");
  const n = state.next;
  // The line speaks of the turns the conversation shows: over an empty
  // conversation it never names a turn, whatever the server remembers.
  const shown = document.querySelectorAll("#conversation .turn").length;
  const last = shown ? state.lastSession : null;
  line.replaceChildren();
  if (!shown && n && n.action === "resume") {
    line.textContent = "The conversation so far is not shown here: the next question continues the agent's session (" + n.reason + ").";
    line.dataset.action = "resume";
    return;
  }
  if (state.running) {
    // The running turn's own session, once its event came; till then it
    // is starting (the previous turn's session is not this one's).
    line.textContent = last ? sessionText(last, state.turns) : "Turn " + state.turns + ": starting…";
    line.dataset.action = last ? last.action : "none";
    return;
  }
  if (n && last && n.action === "new" && n.reason !== "no previous session") {
    line.textContent = "Scope changed: the next question opens a new session (" + n.reason + "); the conversation so far is handed over, and session " + (last.id || "") + " never reads the new sources.";
    line.dataset.action = "new";
    return;
  }
  if (last) {
    line.textContent = sessionText(last, state.turns);
    line.dataset.action = last.action;
    if (n && n.action === "resume") line.append(el("span", { class: "muted", text: " · same scope: the next question continues it" }));
    return;
  }
  line.textContent = "No agent session yet: the first question opens a new session.";
  line.dataset.action = "none";
}

// ---- The turn ----

function turnBlock(id) {
  const block = el("article", { class: "turn", "data-turn": id });
  block.append(
    el("div", { class: "q" }),
    el("p", { class: "turn-session" }),
    el("ol", { class: "calls", "aria-label": "Tool calls" }),
    el("div", { class: "answer", "data-testid": "answer" }),
    el("div", { class: "status" }),
    el("div", { class: "sources", "aria-label": "Sources" }));
  $("conversation").append(block);
  return block;
}

function argsText(a) {
  if (!a) return "";
  try {
    const o = typeof a === "string" ? JSON.parse(a) : a;
    const short = {};
    for (const [k, v] of Object.entries(o || {})) short[k] = typeof v === "string" ? clip(v, 70) : v;
    return JSON.stringify(short);
  } catch (e) {
    return clip(String(a), 140);
  }
}

function callItem(block, c) {
  let li = block.querySelector('[data-call="' + CSS.escape(c.id) + '"]');
  if (!li) {
    li = el("li", { class: "call", "data-testid": "tool-call", "data-call": c.id });
    li.append(
      el("div", { class: "call-head" },
        el("span", { class: "spin", "aria-hidden": "true" }),
        el("code", { class: "tool", text: c.tool }),
        el("code", { class: "args", text: argsText(c.args) }),
        el("span", { class: "call-status" })),
      c.note ? el("div", { class: "note", text: c.note }) : el("div", { class: "note" }),
      el("div", { class: "call-result" }));
    block.querySelector(".calls").append(li);
  }
  li.dataset.status = c.status;
  li.querySelector(".call-status").textContent = c.status === "running" ? "running…" : c.status;
  if (c.args && !li.querySelector(".args").textContent) li.querySelector(".args").textContent = argsText(c.args);
  const res = li.querySelector(".call-result");
  res.replaceChildren();
  if (c.error) res.append(el("p", { class: "refusal", text: c.error }));
  if (c.summary) res.append(el("p", { class: "summary", text: c.summary }));
  if (c.items && c.items.length) {
    const ul = el("ul", { class: "items" });
    for (const it of c.items) {
      ul.append(el("li", {},
        el("div", { class: "it-line" },
          it.title ? el("span", { class: "it-title", text: clip(it.title, 80) }) : null,
          it.where ? el("span", { class: "it-where", text: it.where }) : null,
          it.note ? el("span", { class: "badge place-library", text: it.note }) : null,
          it.link ? linkTo(it.link) : null),
        it.excerpt ? el("q", { class: "excerpt", text: it.excerpt, title: it.excerpt }) : null));
    }
    res.append(ul);
  }
}

// linkify puts the answer's text in the element, turning the citation
// URIs that are sources of the turn into links.
function renderAnswer(block) {
  const div = block.querySelector(".answer");
  const text = block._answer || "";
  const links = block._links || {};
  div.replaceChildren();
  if (!text) return;
  const uris = Object.keys(links).sort((a, b) => b.length - a.length);
  let rest = text;
  while (rest) {
    let best = -1, uri = null;
    for (const u of uris) {
      const i = rest.indexOf(u);
      if (i >= 0 && (best < 0 || i < best)) {
        best = i;
        uri = u;
      }
    }
    if (best < 0) {
      div.append(rest);
      break;
    }
    div.append(rest.slice(0, best), linkTo(links[uri], uri));
    rest = rest.slice(best + uri.length);
  }
}

function renderSources(block, v) {
  const box = block.querySelector(".sources");
  box.replaceChildren();
  const total = v.groups.reduce((n, g) => n + g.sources.length, 0);
  box.append(el("h3", { text: "Sources" }, ), el("p", { class: "muted", text: v.summary }));
  if (!total) box.append(el("p", { class: "muted", text: "None: the agent received nothing from the vault." }));
  block._links = {};
  for (const g of v.groups) {
    if (!g.sources.length) continue;
    const ul = el("ul", { class: "source-list" });
    for (const s of g.sources) {
      block._links[s.uri] = s;
      ul.append(el("li", { class: "src place-" + s.place },
        el("span", { class: "n", text: s.n + "." }),
        el("div", { class: "src-body" },
          linkTo(s, s.title ? clip(s.title, 70) : s.uri, { "data-testid": "source", "data-uri": s.uri, "data-place": s.place, "data-use": g.use }),
          s.where ? el("span", { class: "where", text: s.where }) : null,
          el("span", { class: "badge place-" + s.place, text: s.placeLabel }),
          el("code", { class: "src-uri", text: s.uri }))));
    }
    box.append(el("section", { class: "group group-" + g.use, "data-group": g.use },
      el("h4", { text: g.label + " (" + g.sources.length + ")" }), ul));
  }
  renderAnswer(block);
}

function apply(block, e) {
  switch (e.type) {
    case "question":
      block.querySelector(".q").textContent = e.text;
      break;
    case "plan":
      break;
    case "session":
      block.querySelector(".turn-session").textContent = sessionText(e.session, block._no);
      if (e.session.handoff) {
        block.querySelector(".turn-session").append(el("details", { class: "handoff" },
          el("summary", { text: "the hand-off" }), el("pre", { text: e.session.handoff })));
      }
      if (block._live) {
        state.lastSession = e.session;
        renderSession();
      }
      break;
    case "call":
    case "call_end":
      callItem(block, e.call);
      break;
    case "message":
      block._answer = (block._answer || "") + e.text;
      renderAnswer(block);
      break;
    case "status":
      block.querySelector(".status").append(el("p", { class: "muted", text: e.text }));
      break;
    case "sources":
      renderSources(block, e.sources);
      break;
    case "error":
      block.querySelector(".status").append(el("p", { class: "error", role: "alert", text: e.text }));
      break;
    case "done":
      block.classList.add("done");
      for (const li of block.querySelectorAll('.call[data-status="running"]')) {
        li.dataset.status = "unfinished";
        li.querySelector(".call-status").textContent = "unfinished";
      }
      break;
  }
}

function setRunning(id) {
  state.running = id;
  $("ask-send").disabled = !!id;
  // Kept in the layout, so the form does not change size as a turn starts.
  $("ask-cancel").style.visibility = id ? "visible" : "hidden";
  document.body.classList.toggle("running", !!id);
}

function follow(id, block) {
  const prev = state.lastSession;
  state.lastSession = null;
  setRunning(id);
  block._live = true;
  renderSession();
  const es = new EventSource("/api/turns/" + encodeURIComponent(id) + "/events");
  es.onmessage = (m) => {
    let e;
    try {
      e = JSON.parse(m.data);
    } catch (err) {
      return;
    }
    apply(block, e);
    const conv = $("conversation");
    conv.scrollTop = conv.scrollHeight;
    if (e.type === "done") {
      es.close();
      // A turn that ended before its session was known leaves the
      // previous one in place.
      if (!state.lastSession) state.lastSession = prev;
      setRunning(null);
      block._live = false;
      refreshPlan();
    }
  };
}

async function ask() {
  const input = $("ask-input");
  const q = input.value.trim();
  if (!q || state.running) return;
  try {
    const r = await api("/api/turns", { question: q, scope: state.scope });
    input.value = "";
    state.turns++;
    const block = turnBlock(r.id);
    block._no = state.turns;
    follow(r.id, block);
  } catch (e) {
    $("session").textContent = "Could not send: " + e.message;
  }
}

// ---- Start ----

async function start() {
  const st = await api("/api/state");
  $("vault-name").textContent = st.vault;
  $("agent-name").textContent = st.agent;
  state.papers = st.papers;
  const sel = $("paper-select");
  for (const p of st.papers) sel.append(el("option", { value: p.ref, text: clip(p.title, 70) + " — " + p.ref }));
  state.scope = {
    currentPaper: st.scope.currentPaper || "",
    selections: st.scope.selections || [],
    mentions: st.scope.mentions || [],
  };
  if (st.ask) $("ask-input").value = st.ask;
  // The conversation so far (a reload keeps it).
  const done = st.running ? st.history.slice(0, -1) : st.history;
  for (const evs of done) {
    state.turns++;
    const block = turnBlock("");
    block._no = state.turns;
    for (const e of evs) {
      apply(block, e);
      if (e.type === "session") state.lastSession = e.session;
    }
  }
  if (st.running) {
    // The running turn is streamed again from its first event.
    state.turns++;
    const block = turnBlock(st.running);
    block._no = state.turns;
    follow(st.running, block);
  }
  sel.value = state.scope.currentPaper;
  renderChips();
  refreshPlan();
  loadDoc(state.scope.currentPaper);
}

document.addEventListener("DOMContentLoaded", () => {
  $("paper-select").addEventListener("change", (e) => setPaper(e.target.value));
  document.addEventListener("selectionchange", updateSelectionButton);
  $("add-selection").addEventListener("click", () => {
    const s = currentSelection();
    if (s) addSelection(Object.assign(s, { fromDoc: true }));
  });
  $("typed-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("typed-text").value.replace(/\s+/g, " ").trim();
    const page = Math.max(1, Number($("typed-page").value) || 1);
    if (!text) return;
    addSelection({ text, page });
    $("typed-text").value = "";
  });
  const mi = $("mention-input");
  mi.addEventListener("input", suggest);
  mi.addEventListener("focus", suggest);
  mi.addEventListener("blur", () => {
    $("mention-list").hidden = true;
    mi.setAttribute("aria-expanded", "false");
  });
  mi.addEventListener("keydown", (e) => {
    const n = complete.items.length;
    if (e.key === "ArrowDown" && n) {
      complete.active = (complete.active + 1) % n;
      renderSuggestions();
      e.preventDefault();
    } else if (e.key === "ArrowUp" && n) {
      complete.active = (complete.active - 1 + n) % n;
      renderSuggestions();
      e.preventDefault();
    } else if (e.key === "Enter") {
      e.preventDefault();
      // The highlighted suggestion, when it answers what is typed now;
      // else the path as typed. Suggestions still on their way for what is
      // typed are waited for first.
      const q = mi.value.trim().replace(/^@/, "");
      Promise.resolve(complete.pending).then(() => {
        if (mi.value.trim().replace(/^@/, "") !== q) return; // typed on meanwhile
        if (complete.query === q && complete.active >= 0 && complete.items.length) pick(complete.active);
        else addMention(q);
      });
    } else if (e.key === "Escape") {
      complete.items = [];
      renderSuggestions();
    } else if (e.key === "Backspace" && !mi.value && state.scope.mentions.length) {
      state.scope.mentions.pop();
      scopeChanged();
    }
  });
  $("ask-form").addEventListener("submit", (e) => {
    e.preventDefault();
    ask();
  });
  $("ask-input").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ask();
    }
  });
  $("ask-cancel").addEventListener("click", () => {
    if (state.running) api("/api/turns/" + encodeURIComponent(state.running) + "/cancel", {}).catch(() => {});
  });
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (t.closest && t.closest("input, textarea, select")) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/") {
      e.preventDefault();
      $("ask-input").focus();
    } else if (e.key === "@") {
      e.preventDefault();
      $("mention-input").focus();
    } else if (e.key === "s" && currentSelection()) {
      e.preventDefault();
      addSelection(Object.assign(currentSelection(), { fromDoc: true }));
    }
  });
  start().catch((e) => {
    $("session").textContent = "The sidebar could not start: " + e.message;
  });
});
