"use strict";
// The organiser's page: start the next stage from the standings, pair the next round, put matches on boards (or let
// the next free boards take the next matches) and take them off, enter or correct a result, approve or dismiss a
// board's result held for the organiser, abandon a game in progress that keeps a board, withdraw an entrant; see
// what the boards said (a game in progress keeping a match waiting, a board that refused a match, with the reason),
// every stage's standings (the columns of `flickboard tournament standings`), the exports and the score cards.
// Every act is one POST to /api/tournament/act (the organiser's key), answered in one line; the event is read every 2 s from
// /api/tournament/organiser. While a field is being typed in, the page is not redrawn under it.

(() => {
  const { el, fill, T, saidOf, sayIt } = FB;

  // Every word the page writes, in its language (docs/translating.md); the server's sentences (the acts' answers and
  // refusals, the views' words) come as `said` / `<key>_said` beside their English, said with FB.sayIt / FB.saidOf.
  const SAY = {
    get noAnswerDone() {
      return T("no answer from the display server: nothing was done");
    },
    get noAnswer() {
      return T("no answer from the display server: trying again");
    },
    refused: (code) => T("refused ({code})", { code }),
    held: (match, board) => T("Held: {match} on board {board}", { match, board }),
    wins: (winner, points) => (points ? T("{winner} wins {a}–{b}", { winner, a: points[0], b: points[1] }) : T("{winner} wins", { winner })),
    recorded: (result, source) => T("{result} ({source})", { result, source }),
    get noResult() {
      return T("no result");
    },
    boardSays: (board, event) => T("The board says {board}; the event has {event}.", { board, event }),
    boardJournal: (journal) => T("board journal {journal}", { journal }),
    get approve() {
      return T("Approve the board's result");
    },
    get dismiss() {
      return T("Dismiss it");
    },
    busy: (board, match) => T("Board {board} is busy: {match} waits", { board, match }),
    itsJournal: (journal) => T("Its game's journal: {journal} (abandoning it leaves the journal as it is)", { journal }),
    abandon: (board) => T("Abandon the game on {board}", { board }),
    get refusedTitle() {
      return T("Boards that refused a match");
    },
    get refusedHint() {
      return T("The match went back to waiting for a board: fix the cause, then assign it again.");
    },
    refusedLine: (time, board, match) => T("{time} board {board} refused {match}: ", { time, board, match }),
    get walkover() {
      return T("(walkover)");
    },
    on: (board) => T("on {board}", { board }),
    get waitingForBoard() {
      return T("waiting for a board");
    },
    get winnerChoice() {
      return T("winner…");
    },
    get winner() {
      return T("winner");
    },
    get twenties() {
      return T("twenties");
    },
    get points() {
      return T("points");
    },
    get board() {
      return T("board");
    },
    numbers: (kind, a, b) => T("{kind}: {a} – {b}", { kind, a, b }),
    get assign() {
      return T("Assign");
    },
    takeOff: (board) => T("Take off {board}", { board }),
    get correct() {
      return T("Correct");
    },
    get record() {
      return T("Record");
    },
    pool: (pool) => T("Pool {pool}", { pool }),
    champion: (name) => T("champion {name}", { name }),
    get finalStandings() {
      return T("Final standings");
    },
    tiebreaks: (keys) => T("tie-breaks: {keys}", { keys }),
    get none() {
      return T("none");
    },
    everyone: (n) => T("every active entrant ({n})", { n }),
    firstOf: (stage, format, n) => T("the first N of {stage} ({format}, {n})", { stage, format, n }),
    firstOfPools: (stage, format, n, pools) => T("the first N of {stage} ({format}, {n}, N of each of {pools} pools)", { stage, format, n, pools }),
    get usualRules() {
      return T("the game's usual rule set");
    },
    get live() {
      return T("LIVE");
    },
    get notLive() {
      return T("NOT LIVE");
    },
    title: (name) => T("Organiser · {name}", { name }),
    stage: (stage, progress) => T("Stage {stage}: {progress}.", { stage, progress }),
    get noStage() {
      return T("No stage started yet.");
    },
    nextUp: (match) => T("next up: {match}", { match }),
    get noneReady() {
      return T("no match is ready to start");
    },
    boardBusy: (game, match) => T("busy: {game} ({match} waits)", { game, match }),
    get free() {
      return T("free");
    },
    plays: (match) => T("plays {match}", { match }),
    get noBoard() {
      return T("no board seen yet: type one in a match's board field");
    },
    get match() {
      return T("Match");
    },
    get entrants() {
      return T("Entrants");
    },
    get state() {
      return T("State");
    },
    get act() {
      return T("Act");
    },
    get withdraw() {
      return T("Withdraw");
    },
    status: (status) => (status === "withdrawn" ? T("withdrawn") : status === "disqualified" ? T("disqualified") : status),
    missing: (files) => T("Not on this machine, so not in the archive: {files}", { files }),
    cards: (stage, round) => T("{stage} round {round}", { stage, round }),
    get confirm() {
      return T("Tap again to confirm");
    },
  };
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 2000;
  const ARM_MS = 4000;
  const st = { view: null, text: "", error: null, key: true, timer: null, options: {} };

  async function act(doc) {
    const answer = $("answer");
    answer.className = "said busy";
    answer.textContent = "…";
    document.body.classList.add("busy");
    try {
      const r = await fetch("/api/tournament/act", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(doc) });
      const res = await r.json();
      answer.className = "said " + (res.ok ? "ok" : "bad");
      answer.textContent = res.said ? sayIt(res.said) : res.ok ? res.message : res.error || SAY.refused(r.status);
    } catch (err) {
      answer.className = "said bad";
      answer.textContent = SAY.noAnswerDone;
    }
    document.body.classList.remove("busy");
    if (answer.classList.contains("ok") && doc.match) st.done = doc.match; // that row's fields are spent
    st.text = "";
    await poll(true); // the page shows what the act changed before it says the act is answered
    document.body.dataset.acts = String(Number(document.body.dataset.acts || "0") + 1);
  }

  // What was typed or chosen in the matches' rows (a field changed from what the page put there), by match and
  // field, so that a redraw keeps it; not in the row an act was just answered for.
  function typedIn() {
    const kept = {};
    for (const row of document.querySelectorAll("#matches tr[data-match]")) {
      if (row.dataset.match === st.done) continue;
      const fields = [...row.querySelectorAll("input, select")].filter((f) => f.value !== (f.dataset.initial || ""));
      if (fields.length) kept[row.dataset.match] = fields.map((f) => [f.className, f.value]);
    }
    st.done = null;
    return kept;
  }

  function putBack(kept) {
    for (const [match, fields] of Object.entries(kept)) {
      const row = document.querySelector(`#matches tr[data-match='${CSS.escape(match)}']`);
      for (const [cls, value] of fields) {
        const f = row ? [...row.querySelectorAll("input, select")].find((x) => x.className === cls) : null;
        if (f && (f.tagName !== "SELECT" || [...f.options].some((o) => o.value === value))) f.value = value;
      }
    }
  }

  const who = (m) => m.sides.join(" v ");
  const clock = (at) => new Date(at * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });

  // A tie-break shoot-out match (`<stage>/SO<round>-<k>`): its result is each side's twenties (R-1-B).
  const shootout = (m) => m.shootout || /\/SO\d+-\d+$/.test(m.id);

  function heldCard(h) {
    const r = h.result;
    const rec = h.recorded;
    return el(
      "section",
      { class: "card held attention", data: { match: h.match } },
      el("h2", { text: SAY.held(h.match, h.board) }),
      el("p", { text: SAY.boardSays(SAY.wins(r.winner, r.points), rec ? SAY.recorded(SAY.wins(rec.winner, rec.points), rec.source) : SAY.noResult) }),
      el("p", { class: "hint", text: SAY.boardJournal(h.journal) }),
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", class: "primary", data: { do: "approve" }, text: SAY.approve }),
        el("button", { type: "button", class: "warn", data: { do: "dismiss" }, text: SAY.dismiss })
      )
    );
  }

  function busyCard(b) {
    return el(
      "section",
      { class: "card busyboard attention", data: { board: b.board, match: b.match } },
      el("h2", { text: SAY.busy(b.board, b.match) }),
      el("p", { class: "reason", text: saidOf(b, "reason") }),
      el("p", { class: "hint", text: SAY.itsJournal(b.journal) }),
      el("button", { type: "button", class: "warn", data: { do: "abandon", confirm: "1" }, text: SAY.abandon(b.board) })
    );
  }

  function refusals(v) {
    if (!v.refusals.length) return null;
    return el(
      "section",
      { class: "card refusals attention" },
      el("h2", { text: SAY.refusedTitle }),
      el("p", { class: "hint", text: SAY.refusedHint }),
      el("ul", {}, ...v.refusals.map((r) => el("li", { data: { match: r.match, board: r.board } }, el("b", { text: SAY.refusedLine(clock(r.at), r.board, r.match) }), saidOf(r, "reason"))))
    );
  }

  function matchRow(m) {
    const done = m.state === "done" || m.state === "walkover";
    const result = done ? `${SAY.wins(m.winner)}${m.score ? ` ${m.score}` : ""}${m.walkover ? ` ${SAY.walkover}` : ""}${m.source ? ` · ${m.source}` : ""}` : m.board ? SAY.on(m.board) : SAY.waitingForBoard;
    const winner = el("select", { class: "winner", "aria-label": SAY.winner, data: { initial: done ? m.winner : "" } }, el("option", { value: "", text: SAY.winnerChoice }), ...m.sides.map((s) => el("option", { value: s, text: s, selected: done && m.winner === s })));
    const kind = shootout(m) ? SAY.twenties : SAY.points;
    const label = SAY.numbers(kind, m.sides[0], m.sides[1]); // the numbers in the match's order of sides
    const cells = [
      el("td", { class: "mid", text: m.id }),
      el("td", { class: "who" }, who(m), m.round_name ? el("span", { class: "hint", text: ` · ${saidOf(m, "round_name")}` }) : null),
      el("td", { class: "res", text: result }),
      el(
        "td",
        { class: "forms" },
        !done && !m.board ? el("span", { class: "assign" }, el("input", { class: "board", placeholder: SAY.board, "aria-label": SAY.board, maxlength: "32" }), el("button", { type: "button", data: { do: "assign" }, text: SAY.assign })) : null,
        !done && m.board ? el("span", { class: "unassign" }, el("button", { type: "button", class: "warn", data: { do: "unassign" }, text: SAY.takeOff(m.board) })) : null,
        el(
          "span",
          { class: "result" },
          winner,
          el("label", { class: "numbers" }, el("span", { class: "nlabel", text: label }), el("input", { class: "points", placeholder: shootout(m) ? "9-8" : "310-250", "aria-label": label, maxlength: "20" })),
          el("button", { type: "button", class: done ? "warn" : "primary", data: { do: done ? "correct" : "result" }, text: done ? SAY.correct : SAY.record })
        )
      ),
    ];
    return el("tr", { class: m.state, data: { match: m.id } }, ...cells);
  }

  function tableOf(t) {
    return el(
      "table",
      { class: "standing", data: { pool: t.pool === null ? "" : String(t.pool) } },
      t.pool !== null ? el("caption", { text: SAY.pool(t.pool) }) : null,
      el("thead", {}, el("tr", {}, ...t.columns.map((c) => el("th", { text: T(c) })))),
      el("tbody", {}, ...t.rows.map((r) => el("tr", { data: { entrant: r.entrant || r.cells[1] } }, ...(r.cells_said || r.cells).map((c) => el("td", { text: sayIt(c) })))))
    );
  }

  function standings(v) {
    return v.standings.map((s) =>
      el(
        "div",
        { class: "stagetable", data: { stage: s.stage || "" } },
        el("h3", { text: s.stage ? `${s.stage} · ${saidOf(s, "format")}${s.progress ? ` · ${saidOf(s, "progress")}` : ""}${s.champion ? ` · ${SAY.champion(s.champion)}` : ""}` : SAY.finalStandings }),
        ...s.tables.map(tableOf),
        s.tiebreaks ? el("p", { class: "hint", text: SAY.tiebreaks(s.tiebreaks.length ? s.tiebreaks.join(", ") : SAY.none) }) : null
      )
    );
  }

  // A select's options, replaced only when they change (so a choice being made is kept).
  function options(select, list) {
    const key = JSON.stringify(list);
    if (st.options[select.id] === key) return;
    st.options[select.id] = key;
    const was = select.value;
    fill(select, ...list.map((o) => el("option", { value: o.value, text: o.text })));
    if (list.some((o) => o.value === was)) select.value = was;
  }

  async function startForm(v) {
    options($("format"), v.start.formats.map((f) => ({ value: f.value, text: saidOf(f, "text") })));
    const first = (s) => (s.pools ? SAY.firstOfPools(s.stage, saidOf(s, "format"), s.entrants, s.pools) : SAY.firstOf(s.stage, saidOf(s, "format"), s.entrants));
    options($("from"), [{ value: "", text: SAY.everyone(v.start.active) }, ...v.start.from.map((s) => ({ value: s.stage, text: first(s) }))]);
    const info = await FB.rules();
    options($("game"), (info.games || []).map((g) => ({ value: g.name, text: g.title })));
    const game = $("game").value || "pichenotte";
    const sets = (info.rules || []).filter((r) => r.game === game).map((r) => ({ value: r.name, text: r.name }));
    options($("rules"), [{ value: "", text: SAY.usualRules }, ...sets]);
    shownOptions();
  }

  function shownOptions() {
    const f = $("format").value;
    for (const l of document.querySelectorAll("#start .opt")) {
      l.hidden = !(l.classList.contains(f) || (l.classList.contains("top") && $("from").value));
    }
  }

  function render() {
    const v = st.view;
    const ok = !st.error && st.key;
    document.body.dataset.state = st.error ? "disconnected" : !st.key ? "no-key" : v ? "live" : "connecting";
    if (v) FB.speak(v.game); // the tournament's game's language (Québec: French), unless one was asked for
    $("live").textContent = ok ? SAY.live : SAY.notLive;
    $("live").className = "pill " + (ok ? "ok" : "bad");
    $("keyform").hidden = st.key;
    $("main").hidden = !st.key || !v;
    $("conn").textContent = st.error || "";
    if (!v || !st.key) return;
    document.body.dataset.entries = String(v.entries);
    $("name").textContent = SAY.title(v.name);
    $("hallstate").textContent = `${v.stage ? SAY.stage(v.stage.name, saidOf(v.stage, "progress")) : SAY.noStage} ${saidOf(v.hall, "text")}`;
    document.body.dataset.hall = v.hall.state;
    document.body.dataset.busy = String(v.busy.length);
    document.body.dataset.refusals = String(v.refusals.length);
    fill($("notices"), ...v.busy.map(busyCard), refusals(v));
    $("pair").disabled = !v.can_pair;
    $("nextup").textContent = v.next ? SAY.nextUp(v.next) : SAY.noneReady;
    fill($("held"), ...v.held.map(heldCard));
    document.body.dataset.held = String(v.held.length);
    const boardText = (b) => ` ${b.busy ? SAY.boardBusy(b.busy.game, b.busy.match) : b.free ? SAY.free : SAY.plays(b.match)}`;
    fill($("boards"), ...(v.boards.length ? v.boards.map((b) => el("li", { data: { board: b.board }, class: b.busy ? "busy" : null }, el("b", { text: b.board }), boardText(b))) : [el("li", { class: "hint", text: SAY.noBoard })]));
    const kept = typedIn();
    fill($("matches"), el("tr", {}, el("th", { text: SAY.match }), el("th", { text: SAY.entrants }), el("th", { text: SAY.state }), el("th", { text: SAY.act })), ...v.matches.map(matchRow));
    putBack(kept);
    fill($("tables"), ...standings(v));
    fill($("entrants"), ...v.entrants.map((e) => el("li", { data: { entrant: e.name } }, el("span", { text: e.name }), e.status !== "active" ? el("span", { class: "hint", text: ` ${SAY.status(e.status)}` }) : el("button", { type: "button", class: "warn", data: { do: "withdraw" }, text: SAY.withdraw }))));
    fill($("exports"), ...v.exports.map((x) => el("a", { class: "btn", href: x.href, download: "", text: saidOf(x, "text") })));
    $("missing").textContent = v.missing.length ? SAY.missing(v.missing.join(", ")) : "";
    const lang = FB.language() === "en" ? "" : `?lang=${FB.language()}`; // the cards in the page's language
    fill($("cards"), ...v.cards.map((c) => el("a", { class: "btn", href: c.href + lang, target: "_blank", text: SAY.cards(c.stage, c.round) })));
    startForm(v);
  }

  // Which act a button asks for, with the fields of its row.
  function clicked(btn) {
    const kind = btn.dataset.do;
    if (kind === "pair" || kind === "next-free") return { do: kind };
    const held = btn.closest("section.held");
    if (held) {
      const h = st.view.held.find((x) => x.match === held.dataset.match);
      return { do: kind, match: h.match, journal: h.journal };
    }
    const busy = btn.closest("section.busyboard");
    if (busy) {
      const b = st.view.busy.find((x) => x.board === busy.dataset.board);
      return { do: "abandon", board: b.board, journal: b.journal, reason: "abandoned on the organiser's page" };
    }
    const entrant = btn.closest("li[data-entrant]");
    if (entrant) return { do: "withdraw", entrant: entrant.dataset.entrant };
    const row = btn.closest("tr[data-match]");
    if (!row) return null;
    const match = row.dataset.match;
    if (kind === "assign") return { do: "assign", match, board: row.querySelector("input.board").value.trim() };
    if (kind === "unassign") return { do: "unassign", match, reason: "taken off the board on the organiser's page" };
    const numbers = row.querySelector("input.points").value.trim();
    const doc = { do: kind, match, winner: row.querySelector("select.winner").value };
    doc[/\/SO\d+-\d+$/.test(match) ? "shootout" : "points"] = numbers; // a shoot-out's result is its twenties (R-1-B)
    if (kind === "correct") doc.reason = "corrected on the organiser's page";
    return doc;
  }

  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest("button[data-do]");
    if (!btn || btn.disabled || btn.type === "submit") return;
    if (btn.dataset.confirm && !btn.classList.contains("armed")) {
      btn.classList.add("armed"); // a second tap within 4 s does it
      btn.dataset.was = btn.textContent;
      btn.textContent = SAY.confirm;
      setTimeout(() => {
        btn.classList.remove("armed");
        if (btn.dataset.was) btn.textContent = btn.dataset.was;
      }, ARM_MS);
      return;
    }
    const doc = clicked(btn);
    if (doc) act(doc);
  });

  $("format").addEventListener("change", shownOptions);
  $("from").addEventListener("change", shownOptions);
  $("game").addEventListener("change", () => st.view && startForm(st.view));
  $("start").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData($("start"));
    const doc = { do: "start" };
    for (const k of ["stage", "format", "rounds", "pools", "from", "top", "game", "rules", "match", "tiebreaks"]) {
      const value = String(f.get(k) || "").trim();
      const label = document.querySelector(`#start [name='${k}']`).closest("label");
      if (value && !(label && label.hidden)) doc[k] = value;
    }
    if (doc.format === "double-elimination") doc.reset = f.get("reset") !== "no";
    act(doc);
  });

  const typing = () => {
    const a = document.activeElement;
    return a && (a.tagName === "INPUT" || a.tagName === "SELECT") && a.id !== "key" && !a.closest("#start") && a.value !== "";
  };

  async function poll(now) {
    clearTimeout(st.timer);
    try {
      const r = await fetch("/api/tournament/organiser");
      const text = await r.text();
      const res = JSON.parse(text);
      if (!r.ok) {
        st.key = !["no organiser's key", "not the organiser's key", "wrong scoring key"].includes(res.refused);
        st.error = st.key ? res.error || SAY.refused(r.status) : null;
      } else {
        st.key = true;
        st.error = null;
        if (text !== st.text) {
          st.text = text;
          st.view = res;
          if (!typing() || now === true) render();
          else st.text = "";
        }
      }
    } catch (err) {
      st.error = SAY.noAnswer;
    }
    if (!st.view || !st.key || st.error) render();
    else {
      $("live").textContent = SAY.live;
    }
    st.timer = setTimeout(poll, EVERY_MS);
  }

  FB.keyForm(() => poll(true)); // the poll says whether the key was taken
  FB.ready.then(() => {
    st.options = {}; // the selects' words too
    render();
  });

  render();
  poll(true);
})();
