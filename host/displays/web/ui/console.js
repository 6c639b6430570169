"use strict";
// The operator's console: every board the display server follows, with what the TV leaves out — the link and its
// delivery state, the review items and waits in full, the open shot in the notation, the sensors' unsettled
// evidence, the notes — and each bridge's status and health. Read every 2 s from /api/console (scoring key) and each board's
// /api/<board>/scoreboard.

(() => {
  const { el, fill } = FB;
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 2000;
  const st = { boards: {}, docs: {}, bridges: {}, broker: null, error: null, key: true };

  const SAY = {
    keyFirst: "Type the scoring key above (the operator's terminal shows it): the boards and their bridges follow.",
    noBridge: "No bridge has reported on this broker yet: start flickboard bridge for the boards (docs/mqtt.md).",
  };

  // A bridge's time (UTC, "2026-11-28T04:15:13.123456Z") as the operator's clock reads it: 05:15:13, with the date
  // when it is not today's.
  function when(iso) {
    if (typeof iso !== "string") return iso;
    const d = new Date(iso.replace(/(\.\d{3})\d+/, "$1"));
    if (Number.isNaN(d.getTime())) return iso;
    const time = d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });
    return d.toDateString() === new Date().toDateString() ? time : `${d.toLocaleDateString()} ${time}`;
  }

  const row = (label, value, cls) => (value === null || value === undefined || value === "" ? null : el("tr", { class: cls || null }, el("th", { text: label }), el("td", { text: String(value) })));
  const ranges = (list) => (list || []).map((r) => (r[0] === r[1] ? `${r[0]}` : `${r[0]}–${r[1]}`)).join(", ");

  function linkText(link) {
    if (link.online === true) return `online${link.via ? ` via ${link.via}` : ""}`;
    if (link.online === false) return "OFFLINE";
    return "no board connected (scored by hand)";
  }

  function boardCard(id) {
    const doc = st.docs[id];
    const seen = st.boards[id] || {};
    const head = el(
      "div",
      { class: "head" },
      el("h2", { text: id }),
      el("a", { class: "btn", href: `/tv/${encodeURIComponent(id)}`, text: "TV" }),
      el("a", { class: "btn", href: `/enter/${encodeURIComponent(id)}`, text: "Enter" })
    );
    if (!doc) return el("section", { class: "card board", data: { board: id } }, head, el("p", { class: "hint", text: "no scoreboard yet" }));
    const link = doc.board_link || {};
    const score = doc.score || {};
    const names = (score.sides || []).map((s) => s.name);
    const dup = link.only_duplicates;
    const problems = [];
    for (const r of doc.review || []) problems.push(el("li", { class: "review", text: `needs review (entry ${r.entry}): ${r.text}` }));
    if (doc.waiting) problems.push(el("li", { class: "wait", text: `waiting (entry ${doc.waiting.entry}): ${doc.waiting.text}` }));
    for (const c of doc.checks || []) problems.push(el("li", { class: "wait", text: `check: ${c}` }));
    if (dup) problems.push(el("li", { class: "review", text: `only repeats since ${when(dup.since)}: ${dup.count} messages already counted (a restarted board reusing its boot id?)` }));
    const asks = (doc.asks || []).map((a) =>
      el("li", {}, `${a.text} `, ...a.choices.map((c) => el("code", { text: c.line, title: c.label })), a.prefix ? el("code", { text: `${a.prefix} …` }) : null)
    );
    const shot = doc.open_shot;
    const notes = (doc.notes || []).slice(-4).map((n) => el("li", { text: `(${n.entry}) ${n.text}` }));
    return el(
      "section",
      { class: "card board" + (problems.length ? " attention" : ""), data: { board: id } },
      head,
      el(
        "table",
        { class: "facts" },
        row("score", names.map((n, i) => `${n} ${score.totals ? score.totals[i] : "?"}`).join(" – ")),
        row("game", `${score.game || "pichenotte"} · ${score.rules || ""}${score.match ? ` · ${score.match}` : ""}`),
        row("now", doc.now),
        row("board", linkText(link), link.online === false ? "bad" : null),
        link.boot !== undefined ? row("delivery", `boot ${link.boot} · processed ${link.processed} of ${link.high_water}${link.in_sync === false ? " · BEHIND" : ""}${link.missing && link.missing.length ? ` · missing ${ranges(link.missing)}` : ""}`) : null,
        row("open shot", shot ? `${shot.player} (${shot.kind})${shot.facts.length ? `: ${shot.facts.join(" ")}` : ""}` : null),
        row("queued board events", doc.queued || null),
        row("sensor events", doc.sensor_events),
        row("journal", `${doc.journal} (${doc.entries} entries)`),
        row("updated", when(doc.updated || seen.updated))
      ),
      problems.length ? el("ul", { class: "problems" }, ...problems) : null,
      asks.length ? el("div", {}, el("h3", { text: "Questions, and the lines that answer them" }), el("ul", { class: "asks" }, ...asks)) : null,
      notes.length ? el("div", {}, el("h3", { text: "Latest notes" }), el("ul", { class: "notes" }, ...notes)) : null
    );
  }

  function bridgeCard(id, b) {
    const h = b.health;
    const state = b.online === true ? "running" : b.online === false ? "OFFLINE" : "status not heard";
    const head = el("h2", { text: `Bridge ${id}: ${state}` });
    if (!h) return el("section", { class: "card bridge", data: { bridge: id } }, head, el("p", { class: "hint", text: "no health document from it yet" }));
    const c = (h.protocol && h.protocol.counters) || {};
    const inputs = h.inputs || {};
    const links = Object.entries(h.links || {}).map(([name, l]) => el("li", { text: `${name}: ${l.connected ? "connected" : `down (${l.reason || "?"})`}` }));
    const errors = (h.recent_errors || []).slice(-5).map((e) => el("li", { text: `${when(e.at)} ${e.source} ${e.code}: ${e.reason}` }));
    const owned = Object.entries(st.docs).filter(([, d]) => d.bridge === id).map(([bid]) => bid);
    return el(
      "section",
      { class: "card bridge" + (b.online === false ? " attention" : ""), data: { bridge: id } },
      head,
      el(
        "table",
        { class: "facts" },
        row("keeps", owned.join(", ") || "no board yet"),
        row("started", when(h.started)),
        row("updated", when(h.updated)),
        row("board messages", `${c.messages || 0} (new ${c.new || 0}, repeats ${c.duplicates || 0}, gaps ${c.gaps || 0}, lost ${c.lost_seqs || 0})`),
        row("entries", `${inputs.accepted || 0} taken, ${inputs.refused || 0} refused by the rules, ${inputs.invalid || 0} not understood`)
      ),
      links.length ? el("ul", { class: "links" }, ...links) : null,
      errors.length ? el("div", {}, el("h3", { text: "Latest refused lines" }), el("ul", { class: "errors" }, ...errors)) : null
    );
  }

  function render() {
    const ok = !st.error && st.broker !== false;
    document.body.dataset.state = st.error ? "disconnected" : st.key ? "live" : "no-key";
    $("live").textContent = ok ? "LIVE" : "NOT LIVE";
    $("live").className = "pill " + (ok ? "ok" : "bad");
    $("keyform").hidden = st.key;
    $("conn").textContent = st.error || (st.broker === false ? "the display server lost the MQTT broker: reconnecting" : "");
    const bridges = Object.entries(st.bridges);
    const none = st.key ? (st.error ? null : SAY.noBridge) : SAY.keyFirst;
    fill($("bridges"), ...(bridges.length ? bridges.map(([id, b]) => bridgeCard(id, b)) : [none ? el("p", { class: "hint", data: { said: st.key ? "no-bridge" : "key-first" }, text: none }) : null]));
    fill($("boards"), ...Object.keys(st.boards).map(boardCard));
    document.body.dataset.boards = String(Object.keys(st.docs).length);
  }

  async function poll() {
    try {
      const r = await fetch("/api/console");
      const res = await r.json();
      if (!r.ok) {
        st.key = !["no scoring key", "wrong scoring key"].includes(res.refused);
        st.error = st.key ? res.error || `the console was refused (${r.status})` : null;
      } else {
        st.key = true;
        st.error = null;
        st.boards = res.boards || {};
        st.bridges = res.bridges || {};
        st.broker = res.broker;
        const docs = {};
        await Promise.all(
          Object.keys(st.boards).map(async (id) => {
            const d = await fetch(`/api/${encodeURIComponent(id)}/scoreboard`);
            if (d.ok) docs[id] = await d.json();
          })
        );
        st.docs = docs;
      }
    } catch (err) {
      st.error = "no answer from the display server: trying again";
    }
    render();
    setTimeout(poll, EVERY_MS);
  }

  FB.keyForm(() => {}); // the next poll says whether the key was taken

  render();
  poll();
})();
