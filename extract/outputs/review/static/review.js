// The review page: documents and claims from /api/state, decisions to /api/decide.
// Every piece of text from the output goes into the page as a DOM text node (never as HTML).
// Offsets from the server count code points (Python); the page converts them where the browser
// counts UTF-16 units, so text outside the Basic Multilingual Plane keeps its spans right.
"use strict";
(() => {
  const TOKEN = document.querySelector('meta[name="review-token"]').content;
  const TAB = Math.random().toString(36).slice(2, 10);
  const BUILTIN_NAMES = ["dataset", "hardware", "model", "baseline"];
  const LIST_KEYS = ["system", "datasets", "hardware", "models"];
  // the fields a claim shows and edits: the built-in schema's, or a custom schema's (S.fields)
  const custom = () => Boolean(S && S.fields);
  const nameFields = () => (custom() ? S.fields.spans : BUILTIN_NAMES);
  const choiceFields = () => (custom() ? Object.keys(S.fields.choices) : []);
  const shownFields = () => (custom() ? [...nameFields(), ...choiceFields()] : ["metric", ...BUILTIN_NAMES]);
  const asText = (v) => (v === null || v === undefined ? "" : String(v));

  let S = null;                          // the server's state: docs, progress, kinds, qualifiers, warnings, last
  let docs = [];
  let byId = new Map();
  let docPos = new Map();                // doc_id -> index in docs
  let links = new Map();                 // doc_id -> its link in the document list
  let cur = { doc: null, claim: null };  // where the reviewer is
  let onlyUnreviewed = false;
  let sel = null;                        // words selected in the abstract: {doc, start, end, text}
  let editing = null;                    // id of the claim whose edit form is open
  let editSpan = null;                   // new words chosen for the claim being edited
  let adding = null;                     // the parser's reading of words to add as a claim
  let toastTimer = null;

  // ------------------------------------------------------------------ helpers

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") el.className = value;
      else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
      else el.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }
  const $ = (selector) => document.querySelector(selector);
  const kbd = (key) => h("kbd", {}, key);
  const keepSelection = (ev) => ev.preventDefault();  // on mousedown: a click must not drop the selected words

  function toast(message, error) {
    const el = $("#toast");
    el.textContent = message;
    el.className = "toast" + (error ? " error" : "");
    el.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { el.hidden = true; }, error ? 8000 : 5000);
  }

  async function api(method, path, body) {
    const options = { method, headers: {} };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.headers["X-Review-Token"] = TOKEN;
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) {
      const detail = data && data.detail;
      throw new Error(typeof detail === "string" ? detail : (detail ? JSON.stringify(detail) : `HTTP ${response.status}`));
    }
    return data;
  }

  function fmtNumber(v) {
    return typeof v === "number" ? String(+v.toPrecision(12)) : String(v);
  }

  function fmtValue(c) {
    if (c.value === null || c.value === undefined) return "";
    let s = fmtNumber(c.value);
    if (c.value_high !== null && c.value_high !== undefined) s += "–" + fmtNumber(c.value_high);
    if (c.unit) s += (c.unit === "%" || c.unit === "x" ? "" : " ") + c.unit;
    return (c.qualifier ? c.qualifier + " " : "") + s;
  }

  // ------------------------------------------------------------------ positions

  const docIndex = (docId) => (docPos.has(docId) ? docPos.get(docId) : -1);
  const claimOf = (docId, claimId) => {
    const d = byId.get(docId);
    return d ? d.claims.find((c) => c.id === claimId) : undefined;
  };

  function posKey(stop) {
    const d = byId.get(stop.doc);
    if (!d) return -1;
    const ci = stop.claim ? d.claims.findIndex((c) => c.id === stop.claim) : -1;
    return docIndex(stop.doc) * 1e6 + ci + 1;
  }

  const docVisible = (d) => !onlyUnreviewed || !d.reviewed;
  const claimVisible = (c) => !onlyUnreviewed || c.status === "pending";

  function stopsOf(d, filtered) {  // where the reviewer can stand in a document: each claim, or the document
    if (!d || (filtered && !docVisible(d))) return [];
    const claims = filtered ? d.claims.filter(claimVisible) : d.claims;
    return claims.length ? claims.map((c) => ({ doc: d.doc_id, claim: c.id })) : [{ doc: d.doc_id, claim: null }];
  }

  const stops = (filtered) => docs.flatMap((d) => stopsOf(d, filtered));

  function isPending(stop) {
    if (stop.claim) return (claimOf(stop.doc, stop.claim) || {}).status === "pending";
    const d = byId.get(stop.doc);
    return Boolean(d) && !d.reviewed;
  }

  function initialPosition() {
    const hash = new URLSearchParams(location.hash.slice(1));
    const hd = hash.get("doc"), hc = hash.get("claim");
    if (hd && byId.has(hd)) {
      const d = byId.get(hd);
      cur = { doc: hd, claim: d.claims.some((c) => c.id === hc) ? hc : (d.claims.length ? d.claims[0].id : null) };
      return;
    }
    const all = stops(false);
    let found = null;
    if (S.last && byId.has(S.last.doc_id)) {  // resume after the last decision of the log
      const key = posKey({ doc: S.last.doc_id, claim: S.last.claim_id });
      found = all.find((s) => posKey(s) >= key && isPending(s)) || all.find(isPending)
        || { doc: S.last.doc_id, claim: S.last.claim_id };
    }
    cur = found || all.find(isPending) || all[0] || { doc: null, claim: null };
  }

  function go(stop) {
    if (stop.doc !== cur.doc) window.scrollTo(0, 0);  // a new document starts at its title and lists
    cur = { doc: stop.doc, claim: stop.claim };
    editing = null; editSpan = null; adding = null;
    const params = new URLSearchParams();
    if (cur.doc) params.set("doc", cur.doc);
    if (cur.claim) params.set("claim", cur.claim);
    history.replaceState(null, "", "#" + params.toString());
    render();
    const card = $(".claim-card.current") || $("article.doc");
    if (card) card.scrollIntoView({ block: "nearest" });
    if (currentLink) currentLink.scrollIntoView({ block: "nearest" });
  }

  function move(delta) {  // the nearest stop after (1) or before (-1) the current one, documents walked in order
    const key = posKey(cur);
    const first = docIndex(cur.doc) >= 0 ? docIndex(cur.doc) : (delta > 0 ? 0 : docs.length - 1);
    for (let i = first; i >= 0 && i < docs.length; i += delta) {
      const list = stopsOf(docs[i], true);
      const hit = delta > 0 ? list.find((s) => posKey(s) > key) : list.reverse().find((s) => posKey(s) < key);
      if (hit) { go(hit); return; }
    }
    toast(delta > 0 ? "Nothing more to review after this." : "Nothing to review before this.");
  }

  function advance() {  // after a decision: the next claim of this document, never past its end
    const key = posKey(cur);
    const next = stopsOf(byId.get(cur.doc), true).find((s) => s.claim && posKey(s) > key);
    if (next) { go(next); return; }
    render();
    toast("That was the last claim of this document: add a missed one (select its words, c), or go on (j, d).");
  }

  function moveDoc(delta) {
    for (let i = docIndex(cur.doc) + delta; i >= 0 && i < docs.length; i += delta) {
      const list = stopsOf(docs[i], true);
      if (list.length) { go(list[0]); return; }
    }
    toast(delta > 0 ? "This is the last document." : "This is the first document.");
  }

  // ------------------------------------------------------------------ decisions

  function replaceDoc(doc) {
    const i = docIndex(doc.doc_id);
    if (i >= 0) docs[i] = doc;
    byId.set(doc.doc_id, doc);
    updateLink(doc);
  }

  async function decide(body) {
    body.tab = TAB;
    const claim = body.claim_id ? claimOf(body.doc_id, body.claim_id) : null;
    if (claim) body.rev = claim.rev;
    try {
      const result = await api("POST", "/api/decide", body);
      replaceDoc(result.doc);
      S.progress = result.progress;
      renderProgress();
      if (result.replaced) {
        const r = result.replaced;
        toast(`Another tab had decided this claim (${r.action} by ${r.who} at ${r.at}); your decision replaced it.`);
      }
      return result;
    } catch (e) {
      toast(e.message, true);
      return null;
    }
  }

  async function decideCurrent(action, andNext) {
    if (!cur.claim) { toast("No claim selected."); return; }
    const result = await decide({ action, doc_id: cur.doc, claim_id: cur.claim });
    if (!result) return;
    if (andNext) advance(); else render();
  }

  async function confirmDoc() {
    if (!cur.doc) return;
    const result = await decide({ action: "confirm", doc_id: cur.doc });
    if (result) moveDoc(1);
    render();
  }

  async function changeList(key, update) {
    const d = byId.get(cur.doc);
    const lists = {};
    lists[key] = update(d.lists[key]);
    if (await decide({ action: "lists", doc_id: d.doc_id, lists })) render();
  }

  function addToList(key) {
    if (!sel || sel.doc !== cur.doc) { toast("Select the name's words in the abstract first."); return; }
    const name = sel.text.trim();
    changeList(key, (old) => (key === "system" ? name : [...(old || []), name]));
  }

  async function spanOf(selection) {
    const q = new URLSearchParams({ doc_id: selection.doc, start: selection.start, end: selection.end });
    return api("GET", "/api/span?" + q.toString());
  }

  async function startAdd() {
    if (!sel || sel.doc !== cur.doc) { toast("Select the claim's words in the abstract first, then press c."); return; }
    try {
      adding = Object.assign(await spanOf(sel), { doc: sel.doc });
    } catch (e) { toast(e.message, true); return; }
    editing = null;
    render();
    const select = $("#add-kind");
    if (select) select.focus();
  }

  async function submitAdd() {
    const kind = $("#add-kind").value;
    if (!kind) { toast("Pick the claim's kind."); return; }
    const result = await decide({ action: "add", doc_id: adding.doc, span: [adding.start, adding.end], changes: { kind } });
    if (!result) return;
    adding = null;
    go({ doc: result.doc.doc_id, claim: result.claim_id });
  }

  function startEdit() {
    if (!cur.claim) { toast("No claim selected."); return; }
    editing = cur.claim; editSpan = null; adding = null;
    render();
    const first = $("form.edit select");
    if (first) first.focus();
  }

  async function useSelectionAsEvidence() {
    if (!sel || sel.doc !== cur.doc) { toast("Select the words in the abstract first."); return; }
    try { editSpan = await spanOf(sel); } catch (e) { toast(e.message, true); return; }
    const form = $("form.edit");
    if (!form) return;
    form.querySelector(".evidence").textContent = `${editSpan.evidence}  →  ${fmtValue(editSpan)}`;
    if (form.elements.qualifier) form.elements.qualifier.value = editSpan.qualifier || "";
  }

  async function submitEdit(form, claim) {
    const changes = {};
    const fields = custom() ? ["kind", ...nameFields(), ...choiceFields()] : ["kind", "qualifier", "metric", ...BUILTIN_NAMES];
    for (const field of fields) {
      const value = form.elements[field].value.trim();
      const old = asText(claim.claim[field]);
      if (value !== old) changes[field] = value === "" ? null : value;
    }
    const body = { action: "edit", doc_id: cur.doc, claim_id: claim.id, changes };
    if (editSpan) body.span = [editSpan.start, editSpan.end];
    const result = await decide(body);
    if (!result) return;
    editing = null; editSpan = null;
    advance();
  }

  function toggleFilter(value) {
    onlyUnreviewed = value === undefined ? !onlyUnreviewed : value;
    $("#only-unreviewed").checked = onlyUnreviewed;
    for (const d of docs) updateLink(d);
    const visible = stopsOf(byId.get(cur.doc), true).some((s) => s.claim === cur.claim);
    if (visible) render(); else move(1);
  }

  // ------------------------------------------------------------------ rendering

  function renderProgress() {
    const p = S.progress;
    $("#progress-text").textContent =
      `${p.claims_reviewed} / ${p.claims_total} claims reviewed · ${p.docs_reviewed} / ${p.docs_total} documents`;
    $("#progress-bar").style.width = (p.claims_total ? (100 * p.claims_reviewed / p.claims_total) : 0) + "%";
  }

  function renderWarnings() {
    const box = $("#warnings");
    box.replaceChildren();
    if (!S.warnings.length) { box.hidden = true; return; }
    box.append(h("strong", {}, "Some lines of the review log could not be used and were skipped:"),
      h("ul", {}, S.warnings.map((w) => h("li", {}, w))));
    box.hidden = false;
  }

  function renderDocList() {  // once per load; then updateLink and markCurrent keep it right
    links = new Map(docs.map((d) => [d.doc_id, h("a", {
      href: "#doc=" + encodeURIComponent(d.doc_id), "data-doc": d.doc_id,
      onclick: (ev) => { ev.preventDefault(); const first = stopsOf(byId.get(d.doc_id), true)[0]; go(first || { doc: d.doc_id, claim: null }); },
    }, h("span", { class: "badge" }), h("code", {}, d.doc_id), h("span", { class: "t" }, d.title || d.text.split(/\s+/).slice(0, 8).join(" ")))]));
    docs.forEach(updateLink);
    $("#doclist").replaceChildren(...links.values());
  }

  function updateLink(d) {
    const link = links.get(d.doc_id);
    if (!link) return;
    const badge = link.querySelector(".badge");
    badge.className = "badge" + (d.status === "error" ? " error" : d.reviewed ? " done" : "");
    badge.textContent = d.status === "error" ? "error" : d.reviewed ? "✓" : `${d.pending}`;
    link.hidden = !docVisible(d);
  }

  let currentLink = null;
  function markCurrent() {
    if (currentLink) currentLink.classList.remove("current");
    currentLink = links.get(cur.doc) || null;
    if (currentLink) currentLink.classList.add("current");
  }

  function tooltip(c) {
    const cl = c.claim;
    return [`${cl.kind} · ${fmtValue(cl)} · ${c.status}`, ...shownFields()
      .map((f) => `${f}: ${cl[f] === null || cl[f] === undefined ? "—" : cl[f]}`)].join("\n");
  }

  function renderAbstract(d) {
    const cps = Array.from(d.text);
    const p = h("p", { class: "abstract", id: "abstract", "data-doc": d.doc_id });
    const ordered = [...d.claims.filter((c) => c.status !== "rejected"), ...d.claims.filter((c) => c.status === "rejected")];
    const placed = [];
    for (const c of ordered) {
      const s = c.claim.start, e = c.claim.end;
      if (!(Number.isInteger(s) && Number.isInteger(e) && s >= 0 && s < e && e <= cps.length)) continue;
      if (placed.some((o) => s < o.e && o.s < e) || cps.slice(s, e).join("") !== c.claim.evidence) continue;
      placed.push({ s, e, c });
    }
    placed.sort((a, b) => a.s - b.s);
    let pos = 0;
    for (const { s, e, c } of placed) {
      if (s > pos) p.append(cps.slice(pos, s).join(""));
      p.append(h("mark", {
        class: `claim k-${c.claim.kind} s-${c.status}` + (c.id === cur.claim ? " current" : ""),
        "data-claim": c.id, "data-kind": c.claim.kind, "data-status": c.status, title: tooltip(c),
        onclick: () => { if (window.getSelection().isCollapsed) go({ doc: d.doc_id, claim: c.id }); },
      }, cps.slice(s, e).join("")));
      pos = e;
    }
    if (pos < cps.length) p.append(cps.slice(pos).join(""));
    return p;
  }

  function renderLists(d) {
    const rows = LIST_KEYS.map((key) => {
      const values = key === "system" ? (d.lists.system ? [d.lists.system] : []) : (d.lists[key] || []);
      const chips = values.map((name) => h("span", { class: "chip", "data-name": name }, name,
        h("button", {
          type: "button", title: `remove from ${key}`, "aria-label": `remove ${name}`,
          onclick: () => changeList(key, (old) => (key === "system" ? null : old.filter((n) => n !== name))),
        }, "×")));
      return h("div", { class: "list-row", "data-list": key }, h("span", { class: "label" }, key), chips,
        values.length ? null : h("span", { class: "empty" }, "none"));
    });
    return h("div", { class: "lists" }, rows);
  }

  function renderSelbar() {
    const bar = $("#selbar");
    if (!bar) return;
    bar.replaceChildren();
    if (!sel || sel.doc !== cur.doc) { bar.hidden = true; return; }
    const button = (label, action, key) => h("button", { type: "button", onmousedown: keepSelection, onclick: action }, label, key ? " " : "", key ? kbd(key) : null);
    const parts = ["Selected ", h("q", {}, sel.text.length > 80 ? sel.text.slice(0, 77) + "…" : sel.text), " →",
      button("add claim", startAdd, "c"),
      editing ? button("use as the edited claim's words", useSelectionAsEvidence) : null,
      " add to:", ...["datasets", "hardware", "models"].map((k) => button(k, () => addToList(k))),
      button("set as system", () => addToList("system"))];
    bar.append(...parts.filter((part) => part !== null));
    bar.hidden = false;
  }

  function renderAddPanel() {
    const kinds = h("select", { id: "add-kind", name: "kind" }, h("option", { value: "" }, "choose a kind…"),
      S.kinds.map((k, i) => h("option", { value: k, selected: k === adding.suggested_kind }, `${i + 1} ${k}`)));
    const form = h("form", { class: "panel add", id: "add-panel", onsubmit: (ev) => { ev.preventDefault(); submitAdd(); } },
      h("h3", {}, "Add a claim"),
      h("p", {}, "words ", h("q", { class: "evidence" }, adding.evidence), " · the parser reads ", h("b", {}, fmtValue(adding)),
        adding.metric ? ` · metric “${adding.metric}”` : ""),
      h("label", {}, "kind ", kinds, " "),
      h("button", { type: "submit" }, "Add ", kbd("Enter")), " ",
      h("button", { type: "button", onclick: () => { adding = null; render(); } }, "Cancel ", kbd("Esc")));
    form.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && ev.target.tagName === "SELECT") { ev.preventDefault(); submitAdd(); }
    });
    return form;
  }

  function datalist(d, field) {
    const names = new Set();
    const lists = { dataset: d.lists.datasets, hardware: d.lists.hardware, model: d.lists.models, baseline: [] };
    for (const n of lists[field] || []) names.add(n);
    if (d.lists.system && field !== "hardware") names.add(d.lists.system);
    for (const c of d.claims) if (c.claim[field]) names.add(c.claim[field]);
    return h("datalist", { id: `names-${field}` }, [...names].map((n) => h("option", { value: n })));
  }

  function renderEditForm(d, c) {
    const cl = c.claim;
    const select = (name, options, value) => h("select", { name },
      options.map(([v, label]) => h("option", { value: v, selected: (value || "") === v }, label)));
    const input = (name) => h("input", { name, value: cl[name] || "", list: nameFields().includes(name) ? `names-${name}` : null, autocomplete: "off" });
    const own = custom()
      ? choiceFields().flatMap((f) => [h("label", {}, f),
        select(f, S.fields.choices[f].map((v) => [asText(v), v === null ? "—" : String(v)]), asText(cl[f]))])
      : [h("label", {}, "qualifier"), select("qualifier", [["", "—"], ...S.qualifiers.map((q) => [q, q])], cl.qualifier),
        h("label", {}, "metric"), input("metric")];
    const form = h("form", { class: "edit", onsubmit: (ev) => { ev.preventDefault(); submitEdit(form, c); } },
      h("label", {}, "kind"), select("kind", S.kinds.map((k) => [k, k]), cl.kind),
      ...own,
      ...nameFields().flatMap((f) => [h("label", {}, f), input(f), datalist(d, f)]),
      h("label", {}, "words"), h("div", {},
        h("q", { class: "evidence" }, cl.evidence), " ",
        h("button", { type: "button", onmousedown: keepSelection, onclick: useSelectionAsEvidence }, "use selected words")),
      h("div", { class: "buttons" }, h("button", { type: "submit" }, "Save ", kbd("Enter")),
        h("button", { type: "button", onclick: () => { editing = null; editSpan = null; render(); } }, "Cancel ", kbd("Esc"))));
    form.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && ev.target.tagName === "SELECT") { ev.preventDefault(); submitEdit(form, c); }
    });
    return form;
  }

  function renderCard(d, c) {
    const cl = c.claim;
    const fields = shownFields().map((f) => {
      const was = c.original && c.original[f] !== cl[f] ? h("s", { title: "as extracted" }, c.original[f] || "—") : null;
      return [h("dt", {}, f), h("dd", { "data-field": f }, was, was ? " " : "", cl[f] === null || cl[f] === undefined ? "—" : cl[f])];
    });
    const act = (label, action, key, andNext) => h("button", {
      type: "button", "data-act": action,
      onclick: () => { cur = { doc: d.doc_id, claim: c.id }; if (action === "edit") startEdit(); else decideCurrent(action, andNext); },
    }, label, " ", kbd(key));
    const kindWas = c.original && c.original.kind !== cl.kind ? h("s", { title: "as extracted" }, c.original.kind) : null;
    const classes = `claim-card k-${cl.kind} s-${c.status}` + (c.id === cur.claim ? " current" : "")
      + (onlyUnreviewed && c.status !== "pending" && c.id !== cur.claim ? " hide" : "");
    return h("li", {
      class: classes, "data-claim": c.id, "data-status": c.status, "data-kind": cl.kind,
      onclick: (ev) => { if (!ev.target.closest("button, input, select, form") && cur.claim !== c.id) go({ doc: d.doc_id, claim: c.id }); },
    },
      h("div", { class: "head" }, kindWas, h("span", { class: "kind" }, cl.kind), h("span", { class: "value" }, fmtValue(cl)),
        h("q", {}, cl.evidence),
        c.confidence === null || c.confidence === undefined ? null
          : h("span", { class: "confidence" + (c.uncertain ? " low" : ""),
                       title: "the probability that every field is right" + (c.uncertain ? "; a decision below even odds: check before citing" : "") },
            `confidence ${c.confidence.toFixed(2)}`),
        h("span", { class: `status s-${c.status}` }, c.status)),
      h("dl", {}, fields),
      c.last ? h("div", { class: "who" }, `${c.last.action} by ${c.last.who} · ${c.last.at}`) : null,
      h("div", { class: "actions" }, act("Accept", "accept", "a", true), act("Reject", "reject", "r", true),
        act("Edit", "edit", "e"), act("Undo", "reset", "x", false)),
      editing === c.id ? renderEditForm(d, c) : null);
  }

  function renderDoc() {
    const root = $("#doc");
    root.replaceChildren();
    const d = byId.get(cur.doc);
    if (!d) { root.append(h("p", { class: "empty" }, docs.length ? "Choose a document." : "This output has no documents.")); return; }
    const state = d.reviewed ? h("span", { class: "badge done" }, "reviewed") : h("span", { class: "badge" }, `${d.pending} pending`);
    root.append(h("article", { class: "doc", "data-doc": d.doc_id },
      h("header", {}, h("h2", {}, d.title || d.doc_id),
        h("div", { class: "ids" }, h("code", {}, d.doc_id), d.source ? ` · ${d.source}` : "", " ", state)),
      d.status === "error" ? h("p", { class: "error-msg" }, `extraction failed: ${d.error || "unknown error"}`) : null,
      renderLists(d),
      renderAbstract(d),
      h("div", { class: "selbar", id: "selbar", hidden: true }),
      adding && adding.doc === d.doc_id ? renderAddPanel() : null,
      d.claims.length ? h("ol", { class: "claims" }, d.claims.map((c) => renderCard(d, c)))
        : h("p", { class: "empty" }, "No claims. Select words holding a number and press c to add one; press d if there is none."),
      h("footer", { class: "doc-foot" },
        h("button", { type: "button", id: "done", onclick: confirmDoc }, "Document done (accept the rest) ", kbd("d")),
        `${d.claims.length} claim(s) · ${d.pending} pending`)));
    renderSelbar();
  }

  function render() {
    markCurrent();
    renderDoc();
  }

  // ------------------------------------------------------------------ events

  function offsetIn(root, node, offset) {
    const range = document.createRange();
    range.setStart(root, 0);
    range.setEnd(node, offset);
    return range.toString().length;
  }

  document.addEventListener("selectionchange", () => {
    const selection = window.getSelection();
    const abstract = $("#abstract");
    if (!abstract || !selection.rangeCount || selection.isCollapsed) {
      if (sel) { sel = null; renderSelbar(); }
      return;
    }
    const range = selection.getRangeAt(0);
    if (!abstract.contains(range.startContainer) || !abstract.contains(range.endContainer)) return;
    const text = abstract.textContent;
    const a = offsetIn(abstract, range.startContainer, range.startOffset);
    const b = offsetIn(abstract, range.endContainer, range.endOffset);
    const units = (i) => Array.from(text.slice(0, i)).length;
    sel = { doc: abstract.dataset.doc, start: units(a), end: units(b), text: text.slice(a, b) };
    renderSelbar();
  });

  document.addEventListener("keydown", (ev) => {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "Escape") {
      if (editing || adding) { editing = null; editSpan = null; adding = null; render(); ev.preventDefault(); }
      return;
    }
    if (adding && /^[1-9]$/.test(ev.key)) {
      const kind = S.kinds[Number(ev.key) - 1];
      if (kind) { $("#add-kind").value = kind; ev.preventDefault(); }
      return;
    }
    const t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
    const actions = {
      j: () => move(1), n: () => move(1), k: () => move(-1), p: () => move(-1),
      "]": () => moveDoc(1), "[": () => moveDoc(-1),
      a: () => decideCurrent("accept", true), r: () => decideCurrent("reject", true),
      e: startEdit, x: () => decideCurrent("reset", false), c: startAdd, d: confirmDoc, u: () => toggleFilter(),
    };
    const action = actions[ev.key];
    if (action) { ev.preventDefault(); action(); }
  });

  async function load(keepPosition) {
    try {
      S = await api("GET", "/api/state");
    } catch (e) { toast(`Could not load the review: ${e.message}`, true); return; }
    docs = S.docs;
    byId = new Map(docs.map((d) => [d.doc_id, d]));
    $("#outdir").textContent = `${S.out_dir} · ${S.reviewer}`;
    renderWarnings();
    renderProgress();
    docPos = new Map(docs.map((d, i) => [d.doc_id, i]));
    if (!keepPosition || !byId.has(cur.doc)) initialPosition();
    renderDocList();
    render();
    document.body.dataset.ready = "1";
  }

  $("#only-unreviewed").addEventListener("change", (ev) => toggleFilter(ev.target.checked));
  document.addEventListener("visibilitychange", () => {  // see what another tab decided meanwhile
    if (document.visibilityState === "visible" && !editing && !adding) load(true);
  });
  load(false);
})();
