"use strict";
// The scorer's entry page: every button sends one line of the notation (docs/transcript.md), or a new match,
// through POST /api/<board>/input; `flickboard web` passes it to the bridge and returns the bridge's answer.

(() => {
  const { el, fill, T } = FB;
  const $ = (id) => document.getElementById(id);
  const st = {
    doc: null,
    status: null,
    linkUp: null,
    rules: null,
    picks: {},
    armed: null,
    busy: false,
    prefilled: false,
    shot: { pocketed: [], off: [] }, // Québec: the pieces of the shot being entered
    order: {}, // Flicochet: jack label -> the discs tapped, closest first
    dist: {}, // Flicochet: the distances typed so far, by line prefix (kept across redraws)
  };
  const QUEBEC = "pichenottes-quebec";
  const FLICOCHET = "flicochet";
  const PIECES = ["green", "red", "c5", "c10", "chien"];
  const gameOf = (doc) => (doc && doc.score.game) || "pichenotte";
  const ARM_MS = 4000;
  const DEFAULT_VALUES = [5, 10, 15, 25, 50, 0, "edge"];

  // ---- every word this page writes itself, in one place (a refusal's sentence comes from the server: plain.py)

  const SAY = {
    sending: (label) => T("Sending {label}…", { label }),
    notSent: {
      get "scorer-offline"() {
        return T("Nothing was sent: the scorer's computer (the bridge) is not running. Tap again once the page says LIVE.");
      },
      get disconnected() {
        return T("Nothing was sent: this phone has lost the display server. Tap again once the page says LIVE.");
      },
      get connecting() {
        return T("Nothing was sent yet: the page is still connecting. Tap again once it says LIVE.");
      },
    },
    get noServer() {
      return T("No answer from the display server: check the score before sending it again.");
    },
    refused: (message) => T("Not taken: {reason}", { reason: message }),
    started: (what, players) => (what === SAY.game ? T("New game started: {players}", { players }) : T("New match started: {players}", { players })),
    get keyKept() {
      return T("Scoring key kept on this phone: you can score");
    },
    get dismiss() {
      return T("Close");
    },
    get help() {
      return T("The notation's own words:");
    },
    get thisGame() {
      return T("this game");
    },
    get match() {
      return T("match");
    },
    get points() {
      return T("points");
    },
    lastGame: (g, names) => {
      const score = { game: g.number, a: names[0], pa: g.points[0], pb: g.points[1], b: names[1], winner: g.winner };
      return g.winner ? T("Game {game}: {a} {pa} – {pb} {b}, won by {winner}", score) : T("Game {game}: {a} {pa} – {pb} {b}, tied", score);
    },
    get zonesDue() {
      return T("Every puck is shot: enter each side's zones below.");
    },
    get askDue() {
      return T("Answer the question below.");
    },
    get noShot() {
      return T("No shot is due.");
    },
    zoneTotal: (side, total) => T("{side}: {total} so far", { side, total }),
    tapAgain: (label) => T("Tap again: {label}", { label }),
    toTarget: (target) => T("to {target}", { target }),
    quebecWhere: (manche, target, colours, dames) => T("manche {manche} · to {target} · {colours} · dames left {left}", { manche, target, colours, left: dames }),
    flicochetWhere: (round, target, inHand, jacks) => {
      const where = { round, target, a: inHand[0], b: inHand[1], jacks: jacks.join(", ") };
      return jacks.length === 1
        ? T("round {round} · to {target} · in hand {a}–{b} · jack {jacks}", where)
        : T("round {round} · to {target} · in hand {a}–{b} · jacks {jacks}", where);
    },
    pichenotteWhere: (totals, game, shot, shots, twenties) =>
      T("match {a}–{b} · game {game} · shot {shot}/{shots} · twenties {ta}–{tb}", { a: totals[0], b: totals[1], game, shot, shots, ta: twenties[0], tb: twenties[1] }),
    gameOver: (winner, totals) => T("Game over: {winner} wins {a}–{b}. Start a new game below.", { winner, a: totals[0], b: totals[1] }),
    matchOver: (winner) => T("Match over: {winner} wins. Start a new match below.", { winner }),
    get orderDue() {
      return T("End of the round: tap the discs on the table, closest to the jack first.");
    },
    quebecToShoot: (player, again) =>
      T("{who}: tap what the shot pocketed, then Send.", { who: again ? T("{player} to shoot again", { player }) : T("{player} to shoot", { player }) }),
    toFlick: (player, team) => T("{player} to flick · then any disc or jack off the table.", { player: `${player}${team ? ` (${team})` : ""}` }),
    get nothingDue() {
      return T("Nothing is due.");
    },
    shooting: (player, kind) => T("{player} is shooting · {kind}", { player, kind }),
    toShoot: (player, kind) => T("{player} to shoot · {kind}", { player, kind }),
    get remove() {
      return T("remove");
    },
    puck: (n) => T("puck {n}", { n }),
    zonesTitle: (side) => T("Zones: {side}", { side }),
    zonesFull: (count) => (count === 1 ? T("The puck has its zone: send it") : T("All {count} pucks have a zone: send them", { count })),
    zonesNext: (n, count) => T("Puck {n} of {count} on the board: tap its zone", { n, count }),
    get back() {
      return T("⌫ Back");
    },
    get clear() {
      return T("Clear");
    },
    get send() {
      return T("Send");
    },
    sendZones: (side) => T("Send {side}'s zones", { side }),
    get hit() {
      return T("Hit");
    },
    get miss() {
      return T("Miss");
    },
    inZone: (zone) => T("In the {zone} zone", { zone }),
    get short() {
      return T("Short");
    },
    get declareThis() {
      return T("Declare this shot a twenty");
    },
    get declareNext() {
      return T("Declare a twenty (next shot)");
    },
    get declaredIn() {
      return T("Declared twenty: in");
    },
    get declaredMissed() {
      return T("Declared twenty: missed");
    },
    get shotPlayed() {
      return T("Shot played");
    },
    get nothingYet() {
      return T("nothing yet");
    },
    quebecShot: (player) => T("{player}'s shot: what went in a pocket?", { player }),
    get knockedOff() {
      return T("Knocked off the board:");
    },
    get sendShot() {
      return T("Send the shot");
    },
    sendLine: (line) => T("Send: {line}", { line }),
    get nothingPocketed() {
      return T("Nothing pocketed");
    },
    get foul() {
      return T("Foul (turn passes)");
    },
    jackOff: (n) => (n ? T("Jack {n} off", { n }) : T("Jack off")),
    flickTitle: (player, team, n) => T("{player} · flick {n}", { player: `${player}${team ? ` (${team})` : ""}`, n }),
    flick: (player) => T("Flick: {player}", { player }),
    get afterFlick() {
      return T("After the flick, off the table:");
    },
    get redOff() {
      return T("Red disc off");
    },
    get whiteOff() {
      return T("White disc off");
    },
    get closestFirst() {
      return T("closest first");
    },
    orderTitle: (jack) => (jack ? T("End of round: jack {jack}", { jack }) : T("End of round: the jack")),
    get orderHow() {
      return T("Tap the discs on the table, closest to the jack first (until the first disc of the other colour is enough).");
    },
    redLeft: (n) => T("Red ({n} left)", { n }),
    whiteLeft: (n) => T("White ({n} left)", { n }),
    get noDisc() {
      return T("No disc on the table");
    },
    get sendOrder() {
      return T("Send the order");
    },
    get distances() {
      return T("Or the measured distances (cm):");
    },
    penalty: (side) => T("Penalty {side} (−20)", { side }),
    get game() {
      return T("game");
    },
    startNew: (what) => (what === "game" ? T("Start a new game") : T("Start a new match")),
    tapAgainNew: (what) => (what === "game" ? T("Tap again: start a new game") : T("Tap again: start a new match")),
    get moreTitle() {
      return T("Penalty, undo");
    },
    get moreTitleOther() {
      return T("Undo, any entry");
    },
    // The free line's example speaks of this match (its second side's first player) in Pichenotte.
    example: (game, other) =>
      ({ pichenotte: other ? `e.g. shot hit ${other}:ditch` : "e.g. shot hit", [QUEBEC]: T("e.g. shot red c5@2"), [FLICOCHET]: "e.g. flick at 12" })[game] || "",
    get variants() {
      return T("Variants (combine any)");
    },
    get rules() {
      return T("Rules");
    },
    playersInOrder: (players) => T("Players, in turn order: {players}", { players }),
    get players() {
      return T("Players");
    },
    player: (n, doubles) => (doubles ? T("player {n} (doubles)", { n }) : T("player {n}", { n })),
    get playTo() {
      return T("Play to (points; blank: the rules')");
    },
    get matchFormat() {
      return T("Match format");
    },
    get matchFormatHint() {
      return T("the rule set's (e.g. games:8, wins:2)");
    },
    get flicochetTarget() {
      return T("8 (12 with two jacks)");
    },
    get quebecTarget() {
      return T("31");
    },
    get live() {
      return T("LIVE");
    },
    get notLive() {
      return T("NOT LIVE");
    },
    get newMatch() {
      return T("a new match");
    },
    get newGame() {
      return T("a new game");
    },
  };
  const OK_MS = 6000; // a taken entry's green line goes by itself; a refusal stays until closed or replaced

  // Where the answer goes: just below the part of the page that sent the entry (never over it), outside the parts
  // that are redrawn.
  const ANCHORS = ["#keyform", "#free", "#new-form", "#questions", "#shot", "#game", "#more"];
  function anchorOf(origin) {
    for (const sel of ANCHORS) {
      const a = origin && origin.closest ? origin.closest(sel) : null;
      if (a) return a;
    }
    return $("now");
  }

  let okTimer = null;
  // kind: ok | bad | busy. `parts`: {text, fixes: [{label, line}], help}
  function showAnswer(parts, kind, origin) {
    const a = $("answer");
    const p = typeof parts === "string" ? { text: parts } : parts;
    fill(
      a,
      el(
        "div",
        { class: "said" },
        el("p", { class: "text", text: p.text }),
        kind === "busy" ? null : el("button", { type: "button", class: "close", data: { act: "answer-close" }, "aria-label": SAY.dismiss, text: "✕" })
      ),
      p.fixes && p.fixes.length ? el("div", { class: "fixes grid1" }, ...p.fixes.map((f) => el("button", { type: "button", class: "primary", data: { line: f.line, fix: "yes" }, text: f.label }))) : null,
      p.help ? el("p", { class: "help" }, el("span", { class: "l", text: SAY.help }), " ", el("code", { text: p.help })) : null
    );
    a.className = `answer ${kind}`;
    a.dataset.ok = kind === "ok" ? "true" : kind === "busy" ? "" : "false";
    a.hidden = false;
    if (origin !== undefined && !(origin && origin.closest && origin.closest("#answer"))) anchorOf(origin).after(a);
    a.scrollIntoView({ block: "nearest" });
    clearTimeout(okTimer);
    if (kind === "ok") okTimer = setTimeout(() => (a.hidden = true), OK_MS);
  }

  // The refusal as the scorer reads it: the server's sentence and fixes; the notation only for the free line.
  function refusal(res, origin) {
    const free = !!(origin && origin.closest && origin.closest("#free"));
    // the server's sentences as the catalogues know them (`said`, plain.py), in the page's language
    const fixes = (res.fixes || []).map((f) => (f.said ? { ...f, label: T(f.said.text, f.said.values) } : f));
    if (res.sentence && FB.language() !== "en") {
      // the rules' own sentence, said in the players' language (the bridge keeps it beside its message)
      const whole = T(res.sentence.text, res.sentence.values);
      const reason = whole.replace(/\s*\([^()]*\)/g, ""); // its examples and citations are the help's (plain.py)
      return { text: `✗ ${SAY.refused(reason)}`, fixes, help: free ? whole : null };
    }
    if (res.say) {
      const text = res.said ? T(res.said.text, res.said.values) : res.say;
      return { text: `✗ ${text}`, fixes, help: free && res.message !== res.say ? res.message : null };
    }
    if (res.error) return { text: `✗ ${res.said ? T(res.said.text, res.said.values) : res.error}` };
    return { text: `✗ ${SAY.refused(res.message)}` };
  }

  async function send(req, label, origin) {
    if (st.busy) return null;
    // A page that knows the entry cannot get through says so, and sends nothing (it would land later, unasked).
    const down = FB.alerts(st.doc, st.status, st.linkUp).find((x) => SAY.notSent[x.key]);
    if (down) {
      showAnswer(`✗ ${SAY.notSent[down.key]}`, "bad", origin);
      $("answer").dataset.refused = "offline";
      return { ok: false, error: SAY.notSent[down.key] };
    }
    delete $("answer").dataset.refused;
    st.busy = true;
    document.body.classList.add("busy");
    showAnswer(SAY.sending(label), "busy", origin);
    let res = null;
    try {
      const r = await fetch(`/api/${encodeURIComponent(FB.board)}/input`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(req),
      });
      res = await r.json();
    } catch (err) {
      res = { ok: false, error: SAY.noServer };
    }
    if (KEY_REFUSALS.includes(res.refused)) showKeyForm(true);
    st.busy = false;
    document.body.classList.remove("busy");
    if (res.ok && req.new) {
      const what = formGame() === "pichenotte" ? SAY.match : SAY.game;
      showAnswer(`✓ ${SAY.started(what, req.new.players.join(" – "))}`, "ok", origin);
    } else if (res.ok) {
      showAnswer(`✓ ${res.entry ? `[${res.entry}] ` : ""}${res.message}`, "ok", origin);
    } else {
      showAnswer(refusal(res, origin), "bad", origin);
    }
    return res;
  }

  // A tapped button is named by its own words while it is sent; a typed line by itself.
  const sendLine = (line, origin) => {
    const tapped = origin && origin.tagName === "BUTTON" && !origin.closest("#answer") ? (origin.dataset.label || origin.textContent) : "";
    return send({ line }, tapped || line, origin);
  };

  // ---- the scoring key: asked once, then kept by the browser (an HttpOnly cookie set by the server)

  const KEY_REFUSALS = ["no scoring key", "wrong scoring key", "key for other boards"];

  function showKeyForm(show) {
    $("keyform").hidden = !show;
    document.body.dataset.scorer = show ? "no" : "yes";
    if (show) $("keyform").scrollIntoView({ block: "start" });
  }

  async function checkKey() {
    try {
      const r = await fetch("/api/scorer");
      const res = await r.json();
      showKeyForm(!res.scorer);
    } catch (err) {
      // the server is away: the stream says so; ask again on the next refusal
    }
  }

  FB.keyForm((res) => {
    if (res.ok) {
      showKeyForm(false);
      showAnswer(`✓ ${SAY.keyKept}`, "ok", $("keyform"));
    } else {
      showAnswer(`✗ ${res.error}`, "bad", $("keyform"));
    }
  });

  // A button that changes the match for good (undo, penalty, dismiss, new match) needs a second tap within 4 s.
  function armedOrSend(key, go) {
    const now = Date.now();
    if (st.armed && st.armed.key === key && now < st.armed.until) {
      st.armed = null;
      render();
      go();
      return;
    }
    st.armed = { key, until: now + ARM_MS };
    render();
    setTimeout(render, ARM_MS + 50);
  }

  function isArmed(key) {
    return st.armed !== null && st.armed.key === key && Date.now() < st.armed.until;
  }

  // ---- the parts of the page that follow the scoreboard

  function lineButton(label, line, opts) {
    const o = opts || {};
    const armed = o.confirm && isArmed(line);
    return el(
      "button",
      {
        type: "button",
        class: [o.cls || "", armed ? "armed" : ""].join(" ").trim() || null,
        data: o.confirm ? { line, confirm: "yes", label } : { line },
        text: armed ? SAY.tapAgain(label) : label,
      },
    );
  }

  function otherWhere(score) {
    const cur = score.current;
    if (!cur) return SAY.toTarget(score.target);
    if (score.game === QUEBEC) {
      const cols = score.sides.map((s, i) => `${s.name} ${cur.colours[i] ? FB.colourWord(cur.colours[i]) : "?"}`).join(" / ");
      return SAY.quebecWhere(cur.manche, score.target, cols, cur.dames_left.map((d) => (d === null ? "-" : d)).join("–"));
    }
    return SAY.flicochetWhere(cur.round, score.target, cur.in_hand, cur.jacks);
  }

  function summary(doc) {
    const score = doc.score;
    const names = FB.sideNames(score);
    const cur = score.current;
    // The big pair is what the TV's big numbers say: in a Pichenotte game, what each side has banked in it (twenties
    // less penalties); otherwise the points. Its label says which.
    const pair = (values, label) =>
      el(
        "div",
        { class: "score", data: { what: label } },
        el("span", { class: "s0", text: `${names[0]} ${values[0]}` }),
        " – ",
        el("span", { class: "s1", text: `${values[1]} ${names[1]}` }),
        " ",
        el("span", { class: "what", text: label })
      );
    if (gameOf(doc) !== "pichenotte") {
      return [pair(score.totals, SAY.points), el("div", { class: "where", text: otherWhere(score) })];
    }
    if (!cur) return [pair(score.totals, SAY.match), lastGame(score, names)];
    const banked = [0, 1].map((i) => 20 * cur.twenties[i] - cur.penalties[i]);
    const where = SAY.pichenotteWhere(score.totals, cur.game, Math.min(cur.shots_played + 1, cur.shots_per_game), cur.shots_per_game, cur.twenties);
    return [pair(banked, SAY.thisGame), el("div", { class: "where", text: where }), lastGame(score, names)];
  }

  // The last game's result, under the score: a game's end is said on the phone too.
  function lastGame(score, names) {
    const games = score.games || [];
    if (!games.length) return null;
    return el("div", { class: "lastgame", text: SAY.lastGame(games[games.length - 1], names) });
  }

  function otherNow(doc) {
    const score = doc.score;
    const cur = score.current;
    if (score.over) return SAY.gameOver(score.winner, score.totals);
    const qs = score.questions || [];
    if (qs.some((q) => q.kind === "order")) return SAY.orderDue;
    if (!cur) return "";
    if (score.game === QUEBEC && cur.to_play) return SAY.quebecToShoot(cur.to_play, cur.turn_shots);
    if (score.game === FLICOCHET && cur.to_flick) {
      const i = FB.sideOf(score, cur.to_flick);
      return SAY.toFlick(cur.to_flick, i >= 0 ? score.sides[i].name : "");
    }
    if ((doc.asks || []).length) return SAY.askDue;
    return SAY.nothingDue;
  }

  function nowLine(doc) {
    if (gameOf(doc) !== "pichenotte") return otherNow(doc);
    const score = doc.score;
    const cur = score.current;
    const rs = FB.ruleSet(st.rules, score.rules);
    const freeZone = rs ? rs.free_shot_zone : null;
    if (score.over) return SAY.matchOver(score.winner);
    if (!cur) return "";
    if (doc.open_shot) {
      const s = doc.open_shot;
      return SAY.shooting(s.player, FB.kindText(s.kind, freeZone, true));
    }
    if (cur.to_shoot) return SAY.toShoot(cur.to_shoot, FB.kindText(cur.shot_kind, freeZone));
    const asks = doc.asks || [];
    if (asks.some((a) => a.kind === "zones")) return SAY.zonesDue;
    if (asks.length) return SAY.askDue;
    return SAY.noShot;
  }

  // ---- the questions (doc.asks, host/core/asks.py): each once, a button per choice that applies now

  const KIND_CLASS = { ditch: "q ditch", edge: "q edge", twenty: "q prov", review: "attention", waiting: "attention" };

  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  function askCards(doc) {
    const names = FB.sideNames(doc.score);
    const out = [];
    for (const a of doc.asks || []) {
      if (a.kind === "zones") {
        out.push(zoneCard(doc, a, names));
        continue;
      }
      if (a.kind === "order") continue; // Flicochet's disc-order keypad (gameCards)
      const i = a.side ? names.indexOf(a.side) : -1;
      const extra = (a.items || []).slice(1).map((t) => el("li", { text: t }));
      out.push(
        el(
          "div",
          { class: `card ask ${KIND_CLASS[a.kind] || "q"}${i >= 0 ? ` side${i}` : ""}`, data: { kind: a.kind, side: a.side || "" } },
          el("p", { class: "qtext", text: a.sentence ? capital(T(a.sentence.text, a.sentence.values)) : a.text }),
          extra.length ? el("ul", { class: "more-items" }, ...extra) : null,
          el(
            "div",
            { class: a.choices.length > 2 ? "grid1" : "grid2" },
            ...a.choices.map((c, k) =>
              lineButton(c.said ? T(c.said.text, c.said.values) : T(c.label), c.line, {
                confirm: c.confirm,
                cls: `big ${k === 0 && !c.confirm ? "primary" : ""} ${a.kind === "colour" ? c.label.toLowerCase() : ""}`,
              })
            )
          )
        )
      );
    }
    return out;
  }

  function zoneValues(doc) {
    const rs = FB.ruleSet(st.rules, doc.score.rules);
    return rs ? rs.zone_values : DEFAULT_VALUES;
  }

  // Zones at the end of a game: a keypad, one value per puck of the side still on the board.
  function zoneCard(doc, a, names) {
    const side = a.side;
    const i = names.indexOf(side);
    const count = a.pucks;
    const picks = (st.picks[side] || []).slice(0, count);
    st.picks[side] = picks;
    const full = picks.length >= count;
    const total = picks.reduce((sum, v) => sum + (v === "edge" ? 15 : Number(v)), 0); // a puck on edge: 15 (A-4)
    const chips = picks.map((v, k) =>
      el("button", { type: "button", class: "chip", data: { act: "zone-del", side, index: k }, text: String(v), title: SAY.remove })
    );
    for (let k = picks.length; k < count; k++) chips.push(el("span", { class: "chip empty", text: SAY.puck(k + 1) }));
    return el(
      "div",
      { class: `card zones s${i}`, data: { side, kind: "zones" } },
      el("h2", { text: SAY.zonesTitle(side) }),
      el("p", { class: "count", text: full ? SAY.zonesFull(count) : SAY.zonesNext(picks.length + 1, count) }),
      el("div", { class: "chips" }, ...chips),
      el("p", { class: "total", text: SAY.zoneTotal(side, total) }),
      el(
        "div",
        { class: "vals" },
        ...zoneValues(doc).map((v) =>
          el("button", { type: "button", class: "val", disabled: full, data: { act: "zone-add", side, value: v }, text: String(v) })
        )
      ),
      el(
        "div",
        { class: "grid3" },
        el("button", { type: "button", data: { act: "zone-back", side }, disabled: !picks.length, text: SAY.back }),
        el("button", { type: "button", data: { act: "zone-clear", side }, disabled: !picks.length, text: SAY.clear }),
        el("button", { type: "button", class: "primary", data: { act: "zone-send", side, prefix: a.prefix }, disabled: !full, text: SAY.sendZones(side) })
      )
    );
  }

  // The shot card: only the words that fit the shot now (R-8 contact or declared twenty, R-9 free shot), none once a
  // question is open about it, every puck is shot, or the match is over.
  function shotButtons(doc) {
    const score = doc.score;
    const cur = score.current;
    const asked = new Set((doc.asks || []).map((a) => a.kind));
    if (!cur || score.over || score.shootout || ["zones", "contact", "zone", "choice"].some((k) => asked.has(k))) return [];
    if (!st.rules) return []; // the rule set's free-shot zone decides the words: drawn once /api/rules is in
    const rs = FB.ruleSet(st.rules, score.rules);
    const freeZone = rs ? rs.free_shot_zone : null;
    const sensors = (doc.board_link || {}).online === true;
    const shot = doc.open_shot;
    const out = [];
    if (shot) {
      if (shot.kind === "contact" && shot.contact === null) out.push(lineButton(SAY.hit, "hit", { cls: "big primary" }), lineButton(SAY.miss, "miss", { cls: "big" }));
      if (shot.kind === "free" && shot.zone === null && freeZone) out.push(lineButton(SAY.inZone(freeZone), "zone", { cls: "big primary" }), lineButton(SAY.short, "short", { cls: "big" }));
      if (shot.kind === "contact" && sensors) out.push(lineButton(SAY.declareThis, "declare this"));
      return out;
    }
    if (!cur.to_shoot) return [];
    if (cur.shot_kind === "contact") {
      out.push(lineButton(SAY.hit, "shot hit", { cls: "big primary" }), lineButton(SAY.miss, "shot miss", { cls: "big" }));
      if (sensors) out.push(lineButton(SAY.declareNext, "declare"));
      else out.push(lineButton(SAY.declaredIn, "shot call in"), lineButton(SAY.declaredMissed, "shot call"));
    } else if (cur.shot_kind === "free") {
      if (freeZone) out.push(lineButton(SAY.inZone(freeZone), "shot zone", { cls: "big primary" }), lineButton(SAY.short, "shot short", { cls: "big" }));
      else out.push(lineButton(SAY.shotPlayed, "shot", { cls: "big primary" }));
    }
    return out;
  }

  // ---- Québec Pichenottes: what one shot pocketed and knocked off the board, tapped piece by piece

  function shotLine() {
    const { pocketed, off } = st.shot;
    if (!pocketed.length && !off.length) return "shot none";
    return ["shot", ...pocketed, ...(off.length ? ["off", ...off] : [])].join(" ");
  }

  function quebecCards(doc) {
    const score = doc.score;
    const cur = score.current;
    if (!cur || score.over || !cur.to_play) return [];
    const chips = [];
    const word = (p) => (p === "green" || p === "red" ? FB.colourWord(p) : p);
    st.shot.pocketed.forEach((p, k) => chips.push(el("button", { type: "button", class: `chip ${p}`, data: { act: "piece-del", where: "pocketed", index: k }, text: word(p) })));
    st.shot.off.forEach((p, k) =>
      chips.push(el("button", { type: "button", class: `chip off ${p}`, data: { act: "piece-del", where: "off", index: k }, text: T("off {piece}", { piece: word(p) }) }))
    );
    if (!chips.length) chips.push(el("span", { class: "chip empty", text: SAY.nothingYet }));
    const count = (where, p) => st.shot[where].filter((x) => x === p).length;
    const pieceButton = (where, p) => {
      const n = count(where, p);
      return el("button", { type: "button", class: `piece ${p}`, data: { act: "piece-add", where, piece: p }, text: n ? `${word(p)} ×${n}` : word(p) });
    };
    const empty = !st.shot.pocketed.length && !st.shot.off.length;
    return [
      el(
        "div",
        { class: "card qshot" },
        el("h2", { text: SAY.quebecShot(cur.to_play) }),
        el("div", { class: "pieces" }, ...PIECES.map((p) => pieceButton("pocketed", p))),
        el("p", { class: "count", text: SAY.knockedOff }),
        el("div", { class: "pieces off" }, ...PIECES.map((p) => pieceButton("off", p))),
        el("div", { class: "chips" }, ...chips),
        el(
          "div",
          { class: "grid2" },
          el("button", { type: "button", class: "primary big", id: "shot-send", data: { act: "shot-send" }, disabled: empty, text: empty ? SAY.sendShot : SAY.sendLine(shotLine()) }),
          lineButton(SAY.nothingPocketed, "shot none", { cls: "big" })
        ),
        el(
          "div",
          { class: "grid2" },
          el("button", { type: "button", data: { act: "shot-clear" }, disabled: empty, text: SAY.clear }),
          lineButton(SAY.foul, "foul", { cls: "warn" })
        )
      ),
    ];
  }

  // ---- Flicochet: the flick, what left the table, and the order at the end of a round

  function orderLabel(q) {
    const m = /^order( \d)?/.exec(q.answers[0] || "");
    return m && m[1] ? m[1].trim() : "";
  }

  function flicochetCards(doc) {
    const score = doc.score;
    const cur = score.current;
    if (!cur || score.over) return [];
    const out = [];
    if (cur.to_flick) {
      const i = FB.sideOf(score, cur.to_flick);
      const jacks = cur.jacks || [];
      const jackButtons =
        jacks.length > 1
          ? jacks.map((j, k) => (j === "table" ? lineButton(SAY.jackOff(k + 1), `jack off ${k + 1}`, { cls: "warn" }) : null)).filter(Boolean)
          : [lineButton(SAY.jackOff(""), "jack off", { cls: "warn" })];
      out.push(
        el(
          "div",
          { class: `card flick s${i}` },
          el("h2", { text: SAY.flickTitle(cur.to_flick, i >= 0 ? score.sides[i].name : "", cur.flicks_played + 1) }),
          lineButton(SAY.flick(cur.to_flick), "flick", { cls: "primary big wide" }),
          el("p", { class: "count", text: SAY.afterFlick }),
          el("div", { class: "grid3" }, lineButton(SAY.redOff, "off red", { cls: "red" }), lineButton(SAY.whiteOff, "off white", { cls: "white" }), ...jackButtons)
        )
      );
    }
    for (const q of score.questions || []) {
      if (q.kind !== "order") continue;
      const label = orderLabel(q);
      const key = label || "1";
      const picks = st.order[key] || (st.order[key] = []);
      const left = [cur.on_table[0] - picks.filter((c) => c === "R").length, cur.on_table[1] - picks.filter((c) => c === "W").length];
      const chips = picks.map((c, k) => el("button", { type: "button", class: `chip ${c === "R" ? "red" : "white"}`, data: { act: "order-del", jack: key, index: k }, text: `${k + 1}. ${c}` }));
      if (!chips.length) chips.push(el("span", { class: "chip empty", text: SAY.closestFirst }));
      const prefix = label ? `order ${label}` : "order";
      out.push(
        el(
          "div",
          { class: "card order", data: { jack: key } },
          el("h2", { text: SAY.orderTitle(label) }),
          el("p", { class: "qtext", text: SAY.orderHow }),
          el("div", { class: "chips" }, ...chips),
          el(
            "div",
            { class: "grid2" },
            el("button", { type: "button", class: "big red", data: { act: "order-add", jack: key, disc: "R" }, disabled: left[0] <= 0, text: SAY.redLeft(left[0]) }),
            el("button", { type: "button", class: "big white", data: { act: "order-add", jack: key, disc: "W" }, disabled: left[1] <= 0, text: SAY.whiteLeft(left[1]) })
          ),
          el(
            "div",
            { class: "grid3" },
            el("button", { type: "button", data: { act: "order-back", jack: key }, disabled: !picks.length, text: SAY.back }),
            lineButton(SAY.noDisc, `${prefix} none`),
            el("button", { type: "button", class: "primary", data: { act: "order-send", jack: key, prefix }, disabled: !picks.length, text: SAY.sendOrder })
          ),
          el(
            "form",
            { class: "free dist", data: { prefix: label ? `dist ${label}` : "dist" } },
            el("label", { text: SAY.distances }),
            el(
              "div",
              { class: "row" },
              el("input", { name: "dist", maxlength: "150", placeholder: "R 12.5 W 20 R 31", autocapitalize: "characters", spellcheck: "false", value: st.dist[label ? `dist ${label}` : "dist"] || null }),
              el("button", { type: "submit", text: SAY.send })
            )
          )
        )
      );
    }
    const open = new Set((score.questions || []).filter((q) => q.kind === "order").map((q) => orderLabel(q) || "1"));
    for (const k of Object.keys(st.order)) if (!open.has(k)) delete st.order[k];
    return out;
  }

  function gameCards(doc) {
    const game = gameOf(doc);
    if (game === QUEBEC) return quebecCards(doc);
    if (game === FLICOCHET) return flicochetCards(doc);
    return [];
  }

  function penaltyButtons(doc) {
    if (gameOf(doc) !== "pichenotte") return [];
    return FB.sideNames(doc.score).map((n) => lineButton(SAY.penalty(n), `penalty ${n}`, { confirm: true, cls: "warn" }));
  }

  function refreshStatic(doc) {
    // The buttons written in enter.html: the two-tap state, and which shot words fit now.
    for (const b of document.querySelectorAll("#more button[data-confirm]")) {
      if (!b.dataset.label) b.dataset.label = b.textContent;
      const armed = isArmed(b.dataset.line);
      b.classList.toggle("armed", armed);
      b.textContent = armed ? SAY.tapAgain(T(b.dataset.label)) : T(b.dataset.label); // the HTML's words, in the page's language
    }
    const newArmed = isArmed("new");
    $("new-start").classList.toggle("armed", newArmed);
    const what = $("new-game").value && $("new-game").value !== "pichenotte" ? SAY.game : SAY.match;
    $("new-start").textContent = newArmed ? SAY.tapAgainNew(what) : SAY.startNew(what);
    const game = gameOf(doc);
    $("more-title").textContent = game === "pichenotte" ? SAY.moreTitle : SAY.moreTitleOther;
    document.body.dataset.game = game;
    // The example speaks of this match: its own second side.
    const side = doc ? (doc.score.sides || [])[1] : null;
    const other = side ? (side.players || [])[0] || side.name : "";
    $("free-line").placeholder = SAY.example(game, other);
  }

  // ---- the new match or game form: any of the games (/api/rules lists them and their rule sets)

  function formGame() {
    return $("new-game").value || "pichenotte";
  }

  function setFormGame(game) {
    const info = st.rules;
    if (!info) return;
    $("new-game").value = game;
    const sel = $("new-rules");
    const sets = info.rules.filter((r) => (r.game || "pichenotte") === game && !(game === FLICOCHET && r.name !== FLICOCHET));
    fill(sel, ...sets.map((r) => el("option", { value: r.name, text: r.name })));
    const g = (info.games || []).find((x) => x.name === game);
    if (g) sel.value = g.default;
    const variants = $("new-variants");
    const layers = info.rules.filter((r) => r.game === FLICOCHET && r.name.startsWith("flicochet+"));
    fill(
      variants,
      ...layers.map((r) => {
        const v = r.name.slice("flicochet+".length);
        return el("label", { class: "check" }, el("input", { type: "checkbox", value: v, id: `new-v-${v}` }), ` ${v}`);
      })
    );
    const fl = game === FLICOCHET;
    variants.hidden = !fl;
    sel.hidden = fl;
    $("new-rules-label").textContent = fl ? SAY.variants : SAY.rules;
    $("new-p5").hidden = $("new-p6").hidden = !fl;
    $("new-players-label").textContent = g ? SAY.playersInOrder(g.players) : SAY.players;
    $("new-p3").placeholder = SAY.player(3, !fl);
    $("new-p4").placeholder = SAY.player(4, !fl);
    const target = game !== "pichenotte";
    $("new-match-label").textContent = target ? SAY.playTo : SAY.matchFormat;
    $("new-match").placeholder = target ? (fl ? SAY.flicochetTarget : SAY.quebecTarget) : SAY.matchFormatHint;
    $("new-start").dataset.game = game;
  }

  function formRules() {
    if (formGame() !== FLICOCHET) return $("new-rules").value || undefined;
    const layers = [...document.querySelectorAll("#new-variants input:checked")].map((c) => c.value);
    return [FLICOCHET, ...layers].join("+");
  }

  function prefill(doc) {
    const gsel = $("new-game");
    if (st.rules && !gsel.options.length) {
      const gamesList = st.rules.games || [{ name: "pichenotte", title: "Pichenotte" }];
      for (const g of gamesList) gsel.append(el("option", { value: g.name, text: g.title }));
      setFormGame("pichenotte");
    }
    if (!doc || st.prefilled || !gsel.options.length) return;
    st.prefilled = true;
    const game = gameOf(doc);
    setFormGame(game);
    if (game === FLICOCHET) {
      for (const v of doc.score.variants || []) {
        const box = $(`new-v-${v}`);
        if (box) box.checked = true;
      }
    } else {
      $("new-rules").value = doc.score.rules;
    }
    doc.score.players.forEach((p, k) => {
      const inp = $(`new-p${k + 1}`);
      if (inp && !inp.value) inp.value = p;
    });
  }

  function render() {
    const doc = st.doc;
    const alerts = FB.alerts(doc, st.status, st.linkUp);
    document.body.dataset.state = alerts.length ? alerts[0].key : "live";
    document.body.dataset.entries = doc ? String(doc.entries) : "";
    $("board").textContent = FB.board;
    $("live").textContent = alerts.length ? SAY.notLive : SAY.live;
    $("live").className = "pill " + (alerts.length ? "bad" : "ok");
    fill($("alerts"), ...alerts.map((a) => el("div", { class: `alert ${a.key}`, text: a.text })));
    prefill(doc);
    refreshStatic(doc);
    if (!doc) {
      for (const id of ["summary", "now", "questions", "shot-buttons", "penalties", "game"]) fill($(id));
      $("shot").hidden = true;
      return;
    }
    fill($("summary"), ...summary(doc));
    $("now").textContent = nowLine(doc);
    fill($("questions"), ...askCards(doc));
    const shot = gameOf(doc) === "pichenotte" ? shotButtons(doc) : [];
    fill($("shot-buttons"), ...shot);
    $("shot").hidden = !shot.length;
    fill($("penalties"), ...penaltyButtons(doc));
    fill($("game"), ...gameCards(doc));
    const asking = new Set((doc.asks || []).filter((a) => a.kind === "zones").map((a) => a.side));
    for (const side of Object.keys(st.picks)) if (!asking.has(side)) delete st.picks[side];
  }

  // ---- input

  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("button");
    if (!b || b.disabled || b.type === "submit") return;
    const d = b.dataset;
    if (d.act === "answer-close") {
      $("answer").hidden = true;
      return;
    }
    if (d.fix && $("answer").previousElementSibling === $("free")) {
      sendLine(d.line, b).then((res) => {
        if (res && res.ok) $("free-line").value = ""; // the typed line, corrected and taken
      });
      return;
    }
    if (d.line) {
      if (d.confirm) armedOrSend(d.line, () => sendLine(d.line, b));
      else sendLine(d.line, b);
      return;
    }
    if (d.act && d.act.startsWith("piece-") || d.act === "shot-send" || d.act === "shot-clear") {
      if (d.act === "piece-add") st.shot[d.where].push(d.piece);
      else if (d.act === "piece-del") st.shot[d.where].splice(Number(d.index), 1);
      else if (d.act === "shot-clear") st.shot = { pocketed: [], off: [] };
      else if (d.act === "shot-send") {
        sendLine(shotLine(), b).then((res) => {
          if (res && res.ok) st.shot = { pocketed: [], off: [] };
          render();
        });
      }
      render();
      return;
    }
    if (d.act && d.act.startsWith("order-")) {
      const picks = st.order[d.jack] || (st.order[d.jack] = []);
      if (d.act === "order-add") picks.push(d.disc);
      else if (d.act === "order-del") picks.splice(Number(d.index), 1);
      else if (d.act === "order-back") picks.pop();
      else if (d.act === "order-send") {
        sendLine(`${d.prefix} ${picks.join(" ")}`, b).then((res) => {
          if (res && res.ok) delete st.order[d.jack];
          render();
        });
      }
      render();
      return;
    }
    const side = d.side;
    if (!d.act || !side) return;
    const picks = st.picks[side] || (st.picks[side] = []);
    if (d.act === "zone-add") picks.push(d.value);
    else if (d.act === "zone-del") picks.splice(Number(d.index), 1);
    else if (d.act === "zone-back") picks.pop();
    else if (d.act === "zone-clear") picks.length = 0;
    else if (d.act === "zone-send") {
      const prefix = d.prefix || `zones ${side}`;
      const line = picks.length ? `${prefix} ${picks.join(" ")}` : prefix;
      sendLine(line, b).then((res) => {
        if (res && res.ok) delete st.picks[side];
        render();
      });
    }
    render();
  });

  // The distances form is drawn with the order card, so its submit is caught here.
  $("game").addEventListener("submit", (ev) => {
    const form = ev.target.closest("form.dist");
    if (!form) return;
    ev.preventDefault();
    const inp = form.querySelector("input");
    const text = inp.value.trim();
    if (!text) return;
    sendLine(`${form.dataset.prefix} ${text}`, $("game")).then((res) => {
      if (res && res.ok) delete st.dist[form.dataset.prefix];
    });
  });
  $("game").addEventListener("input", (ev) => {
    const form = ev.target.closest("form.dist");
    if (form) st.dist[form.dataset.prefix] = ev.target.value;
  });

  $("free").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const inp = $("free-line");
    const line = inp.value.trim();
    if (!line) return;
    sendLine(line, $("free")).then((res) => {
      if (res && res.ok) inp.value = "";
    });
  });

  $("new-game").addEventListener("change", () => {
    setFormGame(formGame());
    render();
  });

  $("new-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const game = formGame();
    const players = [1, 2, 3, 4, 5, 6].map((k) => $(`new-p${k}`)).filter((inp) => !inp.hidden).map((inp) => inp.value.trim()).filter(Boolean);
    const req = { players, rules: formRules() };
    const extra = $("new-match").value.trim();
    if (extra) req[game === "pichenotte" ? "match" : "target"] = extra;
    armedOrSend("new", () => send({ new: req }, game === "pichenotte" ? SAY.newMatch : SAY.newGame, $("new-form")));
  });

  checkKey();
  FB.follow(st, render);
  FB.rules().then((info) => {
    st.rules = info;
    render();
  });
  render();
})();
