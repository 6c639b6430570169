"use strict";
// The operator's console: every board the display server follows, with what the TV leaves out — the link and its
// delivery state, the review items and waits in full, the open shot in the notation, the sensors' unsettled
// evidence, the notes — and each bridge's status and health. Read every 2 s from /api/console (scoring key) and each board's
// /api/<board>/scoreboard.

(() => {
  const { el, fill, T } = FB;
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 2000;
  const st = { boards: {}, docs: {}, bridges: {}, broker: null, error: null, key: true };

  // Every word this page writes itself, in one place.
  const SAY = {
    get keyFirst() {
      return T("Type the scoring key above (the operator's terminal shows it): the boards and their bridges follow.");
    },
    get noBridge() {
      return T("No bridge has reported on this broker yet: start flickboard bridge for the boards (docs/mqtt.md).");
    },
    online: (via) => `online${via ? ` via ${via}` : ""}`,
    get offlineLink() {
      return T("OFFLINE");
    },
    get byHand() {
      return T("no board connected (scored by hand)");
    },
    get tv() {
      return T("TV");
    },
    get enter() {
      return T("Enter");
    },
    get noScoreboard() {
      return T("no scoreboard yet");
    },
    review: (entry, text) => `needs review (entry ${entry}): ${text}`,
    waiting: (entry, text) => `waiting (entry ${entry}): ${text}`,
    check: (text) => `check: ${text}`,
    repeats: (since, count) => `only repeats since ${since}: ${count} messages already counted (a restarted board reusing its boot id?)`,
    get score() {
      return T("score");
    },
    get game() {
      return T("game");
    },
    get now() {
      return T("now");
    },
    get board() {
      return T("board");
    },
    get delivery() {
      return T("delivery");
    },
    deliveryText: (link, missing) =>
      `boot ${link.boot} · processed ${link.processed} of ${link.high_water}${link.in_sync === false ? " · BEHIND" : ""}${missing ? ` · missing ${missing}` : ""}`,
    get openShot() {
      return T("open shot");
    },
    get queued() {
      return T("queued board events");
    },
    get sensorEvents() {
      return T("sensor events");
    },
    get journal() {
      return T("journal");
    },
    journalText: (path, entries) => `${path} (${entries} entries)`,
    get updated() {
      return T("updated");
    },
    get questions() {
      return T("Questions, and the lines that answer them");
    },
    get notes() {
      return T("Latest notes");
    },
    get running() {
      return T("running");
    },
    get offline() {
      return T("OFFLINE");
    },
    get notHeard() {
      return T("status not heard");
    },
    bridge: (id, state) => `Bridge ${id}: ${state}`,
    get noHealth() {
      return T("no health document from it yet");
    },
    link: (name, connected, reason) => `${name}: ${connected ? "connected" : `down (${reason || "?"})`}`,
    get keeps() {
      return T("keeps");
    },
    get noBoard() {
      return T("no board yet");
    },
    get started() {
      return T("started");
    },
    get messages() {
      return T("board messages");
    },
    messagesText: (c) =>
      `${c.messages || 0} (new ${c.new || 0}, repeats ${c.duplicates || 0}, gaps ${c.gaps || 0}, lost ${c.lost_seqs || 0})`,
    get entries() {
      return T("entries");
    },
    entriesText: (n) => `${n.accepted || 0} taken, ${n.refused || 0} refused by the rules, ${n.invalid || 0} not understood`,
    get refusedLines() {
      return T("Latest refused lines");
    },
    get live() {
      return T("LIVE");
    },
    get notLive() {
      return T("NOT LIVE");
    },
    get brokerLost() {
      return T("the display server lost the MQTT broker: reconnecting");
    },
    refused: (status) => `the console was refused (${status})`,
    get noServer() {
      return T("no answer from the display server: trying again");
    },
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
    if (link.online === true) return SAY.online(link.via);
    if (link.online === false) return SAY.offlineLink;
    return SAY.byHand;
  }

  function boardCard(id) {
    const doc = st.docs[id];
    const seen = st.boards[id] || {};
    const head = el(
      "div",
      { class: "head" },
      el("h2", { text: id }),
      el("a", { class: "btn", href: `/tv/${encodeURIComponent(id)}`, text: SAY.tv }),
      el("a", { class: "btn", href: `/enter/${encodeURIComponent(id)}`, text: SAY.enter })
    );
    if (!doc) return el("section", { class: "card board", data: { board: id } }, head, el("p", { class: "hint", text: SAY.noScoreboard }));
    const link = doc.board_link || {};
    const score = doc.score || {};
    const names = (score.sides || []).map((s) => s.name);
    const dup = link.only_duplicates;
    const problems = [];
    for (const r of doc.review || []) problems.push(el("li", { class: "review", text: SAY.review(r.entry, r.text) }));
    if (doc.waiting) problems.push(el("li", { class: "wait", text: SAY.waiting(doc.waiting.entry, doc.waiting.text) }));
    for (const c of doc.checks || []) problems.push(el("li", { class: "wait", text: SAY.check(c) }));
    if (dup) problems.push(el("li", { class: "review", text: SAY.repeats(when(dup.since), dup.count) }));
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
        row(SAY.score, names.map((n, i) => `${n} ${score.totals ? score.totals[i] : "?"}`).join(" – ")),
        row(SAY.game, `${score.game || "pichenotte"} · ${score.rules || ""}${score.match ? ` · ${score.match}` : ""}`),
        row(SAY.now, doc.now),
        row(SAY.board, linkText(link), link.online === false ? "bad" : null),
        link.boot !== undefined ? row(SAY.delivery, SAY.deliveryText(link, ranges(link.missing))) : null,
        row(SAY.openShot, shot ? `${shot.player} (${shot.kind})${shot.facts.length ? `: ${shot.facts.join(" ")}` : ""}` : null),
        row(SAY.queued, doc.queued || null),
        row(SAY.sensorEvents, doc.sensor_events),
        row(SAY.journal, SAY.journalText(doc.journal, doc.entries)),
        row(SAY.updated, when(doc.updated || seen.updated))
      ),
      problems.length ? el("ul", { class: "problems" }, ...problems) : null,
      asks.length ? el("div", {}, el("h3", { text: SAY.questions }), el("ul", { class: "asks" }, ...asks)) : null,
      notes.length ? el("div", {}, el("h3", { text: SAY.notes }), el("ul", { class: "notes" }, ...notes)) : null
    );
  }

  function bridgeCard(id, b) {
    const h = b.health;
    const state = b.online === true ? SAY.running : b.online === false ? SAY.offline : SAY.notHeard;
    const head = el("h2", { text: SAY.bridge(id, state) });
    if (!h) return el("section", { class: "card bridge", data: { bridge: id } }, head, el("p", { class: "hint", text: SAY.noHealth }));
    const c = (h.protocol && h.protocol.counters) || {};
    const inputs = h.inputs || {};
    const links = Object.entries(h.links || {}).map(([name, l]) => el("li", { text: SAY.link(name, l.connected, l.reason) }));
    const errors = (h.recent_errors || []).slice(-5).map((e) => el("li", { text: `${when(e.at)} ${e.source} ${e.code}: ${e.reason}` }));
    const owned = Object.entries(st.docs).filter(([, d]) => d.bridge === id).map(([bid]) => bid);
    return el(
      "section",
      { class: "card bridge" + (b.online === false ? " attention" : ""), data: { bridge: id } },
      head,
      el(
        "table",
        { class: "facts" },
        row(SAY.keeps, owned.join(", ") || SAY.noBoard),
        row(SAY.started, when(h.started)),
        row(SAY.updated, when(h.updated)),
        row(SAY.messages, SAY.messagesText(c)),
        row(SAY.entries, SAY.entriesText(inputs))
      ),
      links.length ? el("ul", { class: "links" }, ...links) : null,
      errors.length ? el("div", {}, el("h3", { text: SAY.refusedLines }), el("ul", { class: "errors" }, ...errors)) : null
    );
  }

  function render() {
    const ok = !st.error && st.broker !== false;
    document.body.dataset.state = st.error ? "disconnected" : st.key ? "live" : "no-key";
    $("live").textContent = ok ? SAY.live : SAY.notLive;
    $("live").className = "pill " + (ok ? "ok" : "bad");
    $("keyform").hidden = st.key;
    $("conn").textContent = st.error || (st.broker === false ? SAY.brokerLost : "");
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
        st.key = !["no scoring key", "wrong scoring key", "not the organiser's key"].includes(res.refused);
        st.error = st.key ? res.error || SAY.refused(r.status) : null;
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
      st.error = SAY.noServer;
    }
    render();
    setTimeout(poll, EVERY_MS);
  }

  FB.keyForm(() => {}); // the next poll says whether the key was taken

  render();
  poll();
})();
