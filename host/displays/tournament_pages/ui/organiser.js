"use strict";
// The organiser's page: start the next stage from the standings, pair the next round, put matches on boards (or let
// the next free boards take the next matches) and take them off, enter or correct a result, approve or dismiss a
// board's result held for the organiser, abandon a game in progress that keeps a board, withdraw an entrant; see
// what the boards said (a game in progress keeping a match waiting, a board that refused a match, with the reason),
// every stage's standings (the columns of `flickboard tournament standings`), the exports and the score cards.
// Every act is one POST to /api/tournament/act (the organiser's key), answered in one line; the event is read every 2 s from
// /api/tournament/organiser. While a field is being typed in, the page is not redrawn under it.

(() => {
  const { el, fill } = FB;
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
      answer.textContent = res.ok ? res.message : res.error || `refused (${r.status})`;
    } catch (err) {
      answer.className = "said bad";
      answer.textContent = "no answer from the display server: nothing was done";
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
      el("h2", { text: `Held: ${h.match} on board ${h.board}` }),
      el("p", { text: `The board says ${r.winner} wins${r.points ? ` ${r.points[0]}–${r.points[1]}` : ""}; the event has ${rec ? `${rec.winner} wins${rec.points ? ` ${rec.points[0]}–${rec.points[1]}` : ""} (${rec.source})` : "no result"}.` }),
      el("p", { class: "hint", text: `board journal ${h.journal}` }),
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", class: "primary", data: { do: "approve" }, text: "Approve the board's result" }),
        el("button", { type: "button", class: "warn", data: { do: "dismiss" }, text: "Dismiss it" })
      )
    );
  }

  function busyCard(b) {
    return el(
      "section",
      { class: "card busyboard attention", data: { board: b.board, match: b.match } },
      el("h2", { text: `Board ${b.board} is busy: ${b.match} waits` }),
      el("p", { class: "reason", text: b.reason }),
      el("p", { class: "hint", text: `Its game's journal: ${b.journal} (abandoning it leaves the journal as it is)` }),
      el("button", { type: "button", class: "warn", data: { do: "abandon", confirm: "1" }, text: `Abandon the game on ${b.board}` })
    );
  }

  function refusals(v) {
    if (!v.refusals.length) return null;
    return el(
      "section",
      { class: "card refusals attention" },
      el("h2", { text: "Boards that refused a match" }),
      el("p", { class: "hint", text: "The match went back to waiting for a board: fix the cause, then assign it again." }),
      el("ul", {}, ...v.refusals.map((r) => el("li", { data: { match: r.match, board: r.board } }, el("b", { text: `${clock(r.at)} board ${r.board} refused ${r.match}: ` }), r.reason)))
    );
  }

  function matchRow(m) {
    const done = m.state === "done" || m.state === "walkover";
    const result = done ? `${m.winner} wins${m.score ? ` ${m.score}` : ""}${m.walkover ? " (walkover)" : ""}${m.source ? ` · ${m.source}` : ""}` : m.board ? `on ${m.board}` : "waiting for a board";
    const winner = el("select", { class: "winner", "aria-label": "winner", data: { initial: done ? m.winner : "" } }, el("option", { value: "", text: "winner…" }), ...m.sides.map((s) => el("option", { value: s, text: s, selected: done && m.winner === s })));
    const kind = shootout(m) ? "twenties" : "points";
    const label = `${kind}: ${m.sides[0]} – ${m.sides[1]}`; // the numbers in the match's order of sides
    const cells = [
      el("td", { class: "mid", text: m.id }),
      el("td", { class: "who" }, who(m), m.round_name ? el("span", { class: "hint", text: ` · ${m.round_name}` }) : null),
      el("td", { class: "res", text: result }),
      el(
        "td",
        { class: "forms" },
        !done && !m.board ? el("span", { class: "assign" }, el("input", { class: "board", placeholder: "board", "aria-label": "board", maxlength: "32" }), el("button", { type: "button", data: { do: "assign" }, text: "Assign" })) : null,
        !done && m.board ? el("span", { class: "unassign" }, el("button", { type: "button", class: "warn", data: { do: "unassign" }, text: `Take off ${m.board}` })) : null,
        el(
          "span",
          { class: "result" },
          winner,
          el("label", { class: "numbers" }, el("span", { class: "nlabel", text: label }), el("input", { class: "points", placeholder: shootout(m) ? "9-8" : "310-250", "aria-label": label, maxlength: "20" })),
          el("button", { type: "button", class: done ? "warn" : "primary", data: { do: done ? "correct" : "result" }, text: done ? "Correct" : "Record" })
        )
      ),
    ];
    return el("tr", { class: m.state, data: { match: m.id } }, ...cells);
  }

  function tableOf(t) {
    return el(
      "table",
      { class: "standing", data: { pool: t.pool === null ? "" : String(t.pool) } },
      t.pool !== null ? el("caption", { text: `Pool ${t.pool}` }) : null,
      el("thead", {}, el("tr", {}, ...t.columns.map((c) => el("th", { text: c })))),
      el("tbody", {}, ...t.rows.map((r) => el("tr", { data: { entrant: r.entrant || r.cells[1] } }, ...r.cells.map((c) => el("td", { text: c })))))
    );
  }

  function standings(v) {
    return v.standings.map((s) =>
      el(
        "div",
        { class: "stagetable", data: { stage: s.stage || "" } },
        el("h3", { text: s.stage ? `${s.stage} · ${s.format}${s.progress ? ` · ${s.progress}` : ""}${s.champion ? ` · champion ${s.champion}` : ""}` : "Final standings" }),
        ...s.tables.map(tableOf),
        s.tiebreaks ? el("p", { class: "hint", text: `tie-breaks: ${s.tiebreaks.length ? s.tiebreaks.join(", ") : "none"}` }) : null
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
    options($("format"), v.start.formats);
    options($("from"), [{ value: "", text: `every active entrant (${v.start.active})` }, ...v.start.from.map((s) => ({ value: s.stage, text: `the first N of ${s.stage} (${s.format}, ${s.entrants}${s.pools ? `, N of each of ${s.pools} pools` : ""})` }))]);
    const info = await FB.rules();
    options($("game"), (info.games || []).map((g) => ({ value: g.name, text: g.title })));
    const game = $("game").value || "pichenotte";
    const sets = (info.rules || []).filter((r) => r.game === game).map((r) => ({ value: r.name, text: r.name }));
    options($("rules"), [{ value: "", text: "the game's usual rule set" }, ...sets]);
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
    $("live").textContent = ok ? "LIVE" : "NOT LIVE";
    $("live").className = "pill " + (ok ? "ok" : "bad");
    $("keyform").hidden = st.key;
    $("main").hidden = !st.key || !v;
    $("conn").textContent = st.error || "";
    if (!v || !st.key) return;
    document.body.dataset.entries = String(v.entries);
    $("name").textContent = `Organiser · ${v.name}`;
    $("hallstate").textContent = `${v.stage ? `Stage ${v.stage.name}: ${v.stage.progress}. ` : "No stage started yet. "}${v.hall.text}`;
    document.body.dataset.hall = v.hall.state;
    document.body.dataset.busy = String(v.busy.length);
    document.body.dataset.refusals = String(v.refusals.length);
    fill($("notices"), ...v.busy.map(busyCard), refusals(v));
    $("pair").disabled = !v.can_pair;
    $("nextup").textContent = v.next ? `next up: ${v.next}` : "no match is ready to start";
    fill($("held"), ...v.held.map(heldCard));
    document.body.dataset.held = String(v.held.length);
    const boardText = (b) => (b.busy ? ` busy: ${b.busy.game} (${b.busy.match} waits)` : b.free ? " free" : ` plays ${b.match}`);
    fill($("boards"), ...(v.boards.length ? v.boards.map((b) => el("li", { data: { board: b.board }, class: b.busy ? "busy" : null }, el("b", { text: b.board }), boardText(b))) : [el("li", { class: "hint", text: "no board seen yet: type one in a match's board field" })]));
    const kept = typedIn();
    fill($("matches"), el("tr", {}, el("th", { text: "Match" }), el("th", { text: "Entrants" }), el("th", { text: "State" }), el("th", { text: "Act" })), ...v.matches.map(matchRow));
    putBack(kept);
    fill($("tables"), ...standings(v));
    fill($("entrants"), ...v.entrants.map((e) => el("li", { data: { entrant: e.name } }, el("span", { text: e.name }), e.status !== "active" ? el("span", { class: "hint", text: ` ${e.status}` }) : el("button", { type: "button", class: "warn", data: { do: "withdraw" }, text: "Withdraw" }))));
    fill($("exports"), ...v.exports.map((x) => el("a", { class: "btn", href: x.href, download: "", text: x.text })));
    $("missing").textContent = v.missing.length ? `Not on this machine, so not in the archive: ${v.missing.join(", ")}` : "";
    fill($("cards"), ...v.cards.map((c) => el("a", { class: "btn", href: c.href, target: "_blank", text: `${c.stage} round ${c.round}` })));
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
      btn.textContent = "Tap again to confirm";
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
        st.error = st.key ? res.error || `refused (${r.status})` : null;
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
      st.error = "no answer from the display server: trying again";
    }
    if (!st.view || !st.key || st.error) render();
    else {
      $("live").textContent = "LIVE";
    }
    st.timer = setTimeout(poll, EVERY_MS);
  }

  FB.keyForm(() => poll(true)); // the poll says whether the key was taken

  render();
  poll(true);
})();
