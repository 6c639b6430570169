"use strict";
// The TV scoreboard: one board's scoreboard document, drawn big, redrawn on every change.

(() => {
  const { el, fill, T } = FB;
  const st = { doc: null, status: null, linkUp: null, rules: null };
  // Every word this page writes itself, in one place (the moments' are FB.momentText's, common.js).
  const SAY = {
    allShot: (game) => T("Game {game}: every puck is shot", { game }),
    get last() {
      return T("Last:");
    },
    get live() {
      return T("LIVE");
    },
    get notLive() {
      return T("NOT LIVE");
    },
    get thisGame() {
      return T("this game");
    },
    get matchPoints() {
      return T("match points");
    },
    get toShootTag() {
      return T("TO SHOOT");
    },
    get toFlickTag() {
      return T("TO FLICK");
    },
    twenties: (n) => (n === 1 ? T("twenty") : T("twenties")),
    toConfirm: (n) => T("{n} to confirm", { n }),
    penalty: (n) => T("penalty −{n}", { n }),
    get inHand() {
      return T("in hand");
    },
    get onBoard() {
      return T("on board");
    },
    get inDitch() {
      return T("in ditch");
    },
    get onTable() {
      return T("on table");
    },
    get off() {
      return T("off");
    },
    matchTotal: (n) => T("match {n}", { n }),
    gamesWon: (n) => (Number(n) === 1 ? T("1 game won") : T("{n} games won", { n })),
    compteuse: (value, where) => (where === "won" ? T("c{value} won", { value }) : where === "pending" ? T("c{value} TO BURY", { value }) : `c${value}`),
    get noColour() {
      return T("no colour yet");
    },
    pointsOf: (target) => T("points of {target}", { target }),
    get damesLeft() {
      return T("dames left");
    },
    get compteuses() {
      return T("compteuses");
    },
    get noneYet() {
      return T("none yet");
    },
    get manchePoints() {
      return T("manche points");
    },
    get roundPoints() {
      return T("round points");
    },
    get jackPenalty() {
      return T("jack penalty");
    },
    knocked: (n) => T("{n} knocked off by the other side", { n }),
    jackWhere: {
      get table() {
        return T("on the table");
      },
      get off() {
        return T("OFF");
      },
      get unplaced() {
        return T("to place");
      },
    },
    jack: (n, where) => (n ? T("jack {n} {where}", { n, where }) : T("jack {where}", { where })),
    get gameOver() {
      return T("GAME OVER");
    },
    get matchOver() {
      return T("MATCH OVER");
    },
    wins: (winner) => T("{winner} wins", { winner }),
    winsBy: (winner, totals) => T("{winner} wins {a}–{b}", { winner, a: totals[0], b: totals[1] }),
    toShoot: (player) => T("{player} to shoot", { player }),
    toShootAgain: (player, again) => (again ? T("{player} to shoot again", { player }) : T("{player} to shoot", { player })),
    mancheBreak: (manche, breaker) => T("manche {manche}, break by {breaker}", { manche, breaker }),
    manche: (n) => T("Manche {manche}", { manche: n }),
    placesJack: (player) => T("{player} places the jack", { player }),
    toFlick: (player, team) => T("{player} to flick", { player: `${player}${team}` }),
    flickN: (n) => T("flick {n}", { n }),
    get endOfRound() {
      return T("END OF ROUND: measure");
    },
    get measure() {
      return T("the discs by distance to the jack");
    },
    quebecTop: (rules, target) => T("Québec Pichenottes · {rules} · partie to {target}", { rules, target }),
    flicochetTop: (variants, target) => T("Flicochet · {variants} · {target}", { variants, target: Number(target) === 1 ? T("first to 1 point") : T("first to {n} points", { n: target }) }),
    shootout: (forGame) => (forGame ? T("SHOOT-OUT (this game)") : T("SHOOT-OUT (the match)")),
    get declared() {
      return T("a twenty is declared");
    },
    shooting: (player) => T("{player} is shooting", { player }),
    get baseGame() {
      return T("base game");
    },
    pichenotteTop: (rules, match) => T("Pichenotte · {rules} · {match}", { rules, match }),
    gameShot: (game, shot, shots) => " · " + T("game {game} · shot {shot}/{shots}", { game, shot, shots }),
    mancheShot: (manche, shot) => " · " + T("manche {manche} · shot {shot}", { manche, shot }),
    round: (n) => " · " + T("round {n}", { n }),
  };
  const $ = (id) => document.getElementById(id);
  // The big card: one at a time, the newest, for as long as its kind deserves or until a newer one replaces it;
  // never over the sides' panels (it sits over the bars below them, scaled to fit there).
  const CARD_MS = { 3: 20000, 2: 8000, 1: 4000 }; // by rank (FB.cardRank): the match's end, a game's end, a cheer
  let card = null; // {text, kind, entry, rank, until}
  let cardTimer = null;

  // Pichenotte: during a game the big number is what the side has banked in it (twenties, less penalties); the
  // zones come at its end. The match total and the games won sit beside it.
  function sidePanel(score, cur, i, up) {
    const side = score.sides[i];
    const name = side.name;
    const prov = cur ? cur.provisional_twenties.filter((p) => p.side === name).length : 0;
    const won = score.games_won ? score.games_won[i] : 0;
    const players = side.players.length > 1 && side.name !== side.players.join("+") ? side.players.join(" + ") : "";
    const stat = (label, value) => el("div", { class: "stat" }, el("span", { class: "n", text: value }), el("span", { class: "l", text: label }));
    const games = (score.games || []).slice(-8);
    const banked = cur ? 20 * cur.twenties[i] - cur.penalties[i] : null;
    const big = cur
      ? el("div", { class: "total", data: { what: "game" } }, el("span", { class: "n", text: banked }), el("span", { class: "l", text: SAY.thisGame }))
      : el("div", { class: "total", data: { what: "match" } }, el("span", { class: "n", text: score.totals[i] }), el("span", { class: "l", text: SAY.matchPoints }));
    return el(
      "section",
      { class: `side s${i}` + (up ? " up" : ""), id: `side${i}` },
      el("div", { class: "head" }, el("h2", { class: "name", text: name }), up ? el("span", { class: "tag", text: SAY.toShootTag }) : null),
      players ? el("div", { class: "players", text: players }) : null,
      el(
        "div",
        { class: "row1" },
        big,
        cur
          ? el(
              "div",
              { class: "twenties" },
              el("span", { class: "n", text: cur.twenties[i] }),
              el("span", { class: "l", text: SAY.twenties(cur.twenties[i]) }),
              prov ? el("span", { class: "prov", text: SAY.toConfirm(prov) }) : null,
              cur.penalties[i] ? el("span", { class: "penalty", text: SAY.penalty(cur.penalties[i]) }) : null
            )
          : null
      ),
      cur ? el("div", { class: "pucks" }, stat(SAY.inHand, cur.in_hand[i]), stat(SAY.onBoard, cur.on_board[i]), stat(SAY.inDitch, cur.in_ditch[i])) : null,
      el(
        "div",
        { class: "games" },
        cur ? el("span", { class: "match-total", text: SAY.matchTotal(score.totals[i]) }) : null,
        el("span", { class: "l", text: SAY.gamesWon(won) }),
        ...games.map((g) => el("span", { class: g.winner === name ? "g won" : "g", text: g.points[i] }))
      )
    );
  }

  // ---- Québec Pichenottes (seed 003) and Flicochet (seed 004): their own panels and turn line

  const stat = (label, value, cls) =>
    el("div", { class: "stat" + (cls ? ` ${cls}` : "") }, el("span", { class: "n", text: value }), el("span", { class: "l", text: label }));

  function roundChips(score, i, name, label) {
    const rounds = (score.rounds || []).filter((r) => r.points).slice(-8);
    if (!rounds.length) return null;
    const won = (r) => r.points[i] > r.points[1 - i];
    return el(
      "div",
      { class: "games" },
      el("span", { class: "l", text: label }),
      ...rounds.map((r) => el("span", { class: won(r) ? "g won" : "g", text: r.points[i], title: `${r.number}` }))
    );
  }

  function quebecPanel(score, i, up) {
    const side = score.sides[i];
    const cur = score.current;
    const colour = cur ? cur.colours[i] : null;
    const players = side.players.length > 1 && side.name !== side.players.join("+") ? side.players.join(" + ") : "";
    const mine = cur ? cur.compteuses.filter((c) => c.side === side.name) : [];
    const comp = mine.map((c) =>
      el("span", { class: `comp ${c.where}`, text: SAY.compteuse(c.value, c.where) })
    );
    return el(
      "section",
      { class: `side s${i}` + (up ? " up" : ""), id: `side${i}`, data: { game: "quebec" } },
      el(
        "div",
        { class: "head" },
        el("h2", { class: "name", text: side.name }),
        el("span", { class: `colour ${colour || "none"}`, text: colour ? FB.colourWord(colour).toUpperCase() : SAY.noColour }),
        up ? el("span", { class: "tag", text: SAY.toShootTag }) : null
      ),
      players ? el("div", { class: "players", text: players }) : null,
      el(
        "div",
        { class: "row1" },
        el("div", { class: "total" }, el("span", { class: "n", text: score.totals[i] }), el("span", { class: "l", text: SAY.pointsOf(score.target) })),
        cur && cur.dames_left[i] !== null
          ? el("div", { class: "twenties dames" }, el("span", { class: "n", text: cur.dames_left[i] }), el("span", { class: "l", text: SAY.damesLeft }))
          : null
      ),
      el("div", { class: "comps" }, el("span", { class: "l", text: SAY.compteuses }), ...(comp.length ? comp : [el("span", { class: "g", text: SAY.noneYet })])),
      roundChips(score, i, side.name, SAY.manchePoints)
    );
  }

  function flicochetPanel(score, i, up) {
    const side = score.sides[i];
    const cur = score.current;
    const players = side.players.join(" + ");
    const pen = cur ? cur.penalties[i] : 0;
    const knocked = cur ? cur.knocked_off_by_opponent[i] : 0;
    return el(
      "section",
      { class: `side s${i} team-${side.name}` + (up ? " up" : ""), id: `side${i}`, data: { game: "flicochet" } },
      el("div", { class: "head" }, el("h2", { class: "name", text: side.name.toUpperCase() }), up ? el("span", { class: "tag", text: SAY.toFlickTag }) : null),
      el("div", { class: "players", text: players }),
      el(
        "div",
        { class: "row1" },
        el("div", { class: "total" }, el("span", { class: "n", text: score.totals[i] }), el("span", { class: "l", text: SAY.pointsOf(score.target) })),
        pen ? el("div", { class: "twenties penalty-pts" }, el("span", { class: "n", text: `+${pen}` }), el("span", { class: "l", text: SAY.jackPenalty })) : null
      ),
      cur ? el("div", { class: "pucks" }, stat(SAY.inHand, cur.in_hand[i]), stat(SAY.onTable, cur.on_table[i]), stat(SAY.off, cur.off_table[i])) : null,
      knocked ? el("div", { class: "l", text: SAY.knocked(knocked) }) : null,
      roundChips(score, i, side.name, SAY.roundPoints)
    );
  }

  function jacksText(cur) {
    const jacks = cur.jacks || [];
    const where = SAY.jackWhere;
    if (jacks.length === 1) return SAY.jack("", where[jacks[0]] || jacks[0]);
    return jacks.map((j, k) => SAY.jack(k + 1, where[j] || j)).join(" · ");
  }

  function otherTurnLine(doc) {
    const score = doc.score;
    const cur = score.current;
    if (score.over) {
      return el("div", { class: "over" }, el("b", { text: SAY.gameOver }), ` ${SAY.winsBy(score.winner, score.totals)}`);
    }
    if (!cur) return el("div", { text: "" });
    if (score.game === "pichenottes-quebec") {
      if (cur.to_play) {
        const again = !!cur.turn_shots;
        return el("div", {}, el("b", { text: SAY.toShootAgain(cur.to_play, again) }), ` · ${SAY.mancheBreak(cur.manche, cur.breaker)}`);
      }
      return el("div", {}, el("b", { text: SAY.manche(cur.manche) }));
    }
    const jacks = ` · ${jacksText(cur)}`;
    if (cur.to_place_jack) return el("div", {}, el("b", { text: SAY.placesJack(cur.to_place_jack) }), jacks);
    if (cur.to_flick) {
      const team = FB.sideOf(score, cur.to_flick);
      const name = team >= 0 ? ` (${score.sides[team].name})` : "";
      return el("div", {}, el("b", { text: SAY.toFlick(cur.to_flick, name) }), ` · ${SAY.flickN(cur.flicks_played + 1)}${jacks}`);
    }
    return el("div", {}, el("b", { text: SAY.endOfRound }), ` · ${SAY.measure}${jacks}`);
  }

  function otherTop(score) {
    const cur = score.current;
    if (score.game === "pichenottes-quebec") {
      const where = cur ? SAY.mancheShot(cur.manche, cur.shots + 1) : "";
      return `${SAY.quebecTop(score.rules, score.target)}${where}`;
    }
    const variants = (score.variants || []).join(", ") || SAY.baseGame;
    const where = cur ? SAY.round(cur.round) : "";
    return `${SAY.flicochetTop(variants, score.target)}${where}`;
  }

  function turnLine(doc) {
    const score = doc.score;
    const cur = score.current;
    const rs = FB.ruleSet(st.rules, score.rules);
    const freeZone = rs ? rs.free_shot_zone : null;
    if (score.over) {
      return el("div", { class: "over" }, el("b", { text: SAY.matchOver }), ` ${SAY.wins(score.winner)}`);
    }
    const so = score.shootout;
    if (so) {
      const names = FB.sideNames(score);
      const tally = names.map((n, i) => `${n} ${so.twenties[i]}/${so.shots[i]}`).join(" · ");
      return el(
        "div",
        {},
        el("b", { text: SAY.shootout(so.purpose === "game") }),
        ` ${tally}` + (so.to_shoot ? ` · ${SAY.toShoot(so.to_shoot)}` : "")
      );
    }
    if (!cur) return el("div", { text: "" });
    const shot = doc.open_shot;
    const declared = doc.declared ? ` · ${SAY.declared}` : "";
    if (shot) {
      return el("div", {}, el("b", { text: SAY.shooting(shot.player) }), ` · ${FB.kindText(shot.kind, freeZone, true)}${declared}`);
    }
    if (cur.to_shoot) {
      return el("div", {}, el("b", { text: SAY.toShoot(cur.to_shoot) }), ` · ${FB.kindText(cur.shot_kind, freeZone)}${declared}`);
    }
    return el("div", {}, el("b", { text: SAY.allShot(cur.game) }));
  }

  // The one sentence the room needs when the play waits for a person (doc.now, host/core/asks.py): never the
  // scorer's notation, never a queue count; nothing when the play goes on (the turn line says whose shot).
  function stateLine(doc) {
    const asks = doc.asks || [];
    const link = doc.board_link || {};
    if (!asks.length && !link.only_duplicates) return null;
    const kind = asks.length ? asks[0].kind : "repeats";
    // a Québec player's choice, in the players' language: the engine's sentence without its rule (as doc.now has it)
    const sentence = kind === "colour" && asks[0].sentence;
    const now = doc.now_sentence ? T(doc.now_sentence.text, doc.now_sentence.values) : doc.now; // host/core/asks.py
    const said = sentence ? T(sentence.text, sentence.values).replace(/\s*\([^)]*\)$/, "") : now;
    return el("div", { class: `state ${kind === "review" || kind === "waiting" || kind === "repeats" ? "check" : "ask"}`, data: { kind }, text: said });
  }

  // The last scoring moments, newest first, kept across a reload of the page for the same match.
  const RECENT = 4;
  const recentKey = `flickboard-recent-${FB.board}`;
  let recent = [];
  try {
    recent = JSON.parse(sessionStorage.getItem(recentKey) || "[]");
  } catch (err) {
    recent = [];
  }
  let lastEntries = null;

  function saveRecent() {
    try {
      sessionStorage.setItem(recentKey, JSON.stringify(recent));
    } catch (err) {
      // private mode: the list lives as long as the page
    }
  }

  // A moment whose entry was taken back (undo) leaves the row, and its card: the scoreboard lists the latest entries
  // in effect (`in_effect`); an entry within their span that is not among them is not in effect any more.
  function undone(entry, doc) {
    const live = doc.in_effect;
    if (!Array.isArray(live) || !entry || entry > doc.entries) return false;
    if (live.length >= 16 && entry < live[0]) return false; // older than the list: it cannot say
    return !live.includes(entry);
  }

  // A sensor's provisional twenty is settled by the scorer: confirmed, it stays without "(provisional)"; struck
  // ("No twenty"), the side's twenties go down and it leaves the row and its card.
  function settled(r, doc) {
    const cur = doc.score.current;
    if (r.kind !== "twenty" || !r.provisional || !cur || !cur.provisional_twenties) return "open";
    const i = FB.sideNames(doc.score).indexOf(r.side);
    if (i < 0) return "open";
    if (cur.provisional_twenties.some((p) => p.entry === r.entry)) {
      r.seen = { game: cur.game, twenties: cur.twenties[i] };
      return "open";
    }
    if (!r.seen || r.seen.game !== cur.game) return "open";
    return cur.twenties[i] < r.seen.twenties ? "struck" : "confirmed";
  }

  // The sensors' own notices name the board event that raised them, which may never be in effect: they stay.
  const SENSOR_NOTICES = new Set(["review", "edge"]);

  function dropUndone(doc) {
    let changed = false;
    const kept = [];
    for (const r of recent) {
      const how = settled(r, doc);
      if ((!SENSOR_NOTICES.has(r.kind) && undone(r.entry, doc)) || how === "struck") {
        changed = true;
        if (card && card.entry === r.entry) hideCard();
        continue;
      }
      if (how === "confirmed") {
        r.provisional = false;
        r.text = FB.momentText({ type: "twenty", side: r.side }, true);
        changed = true;
      }
      kept.push(r);
    }
    if (changed) {
      recent = kept;
      saveRecent();
    }
    if (card && undone(card.entry, doc)) hideCard();
  }

  function keepRecent(text, m) {
    recent.unshift({ text, kind: m.type, entry: m.entry, side: m.side, provisional: !!m.provisional });
    recent = recent.slice(0, RECENT);
    saveRecent();
  }

  function recentLine() {
    if (!recent.length) return [];
    return [el("span", { class: "l", text: SAY.last }), ...recent.map((r, k) => el("span", { class: `moment ${r.kind}${k ? "" : " newest"}`, text: r.text }))];
  }

  function render() {
    requestAnimationFrame(placeCard); // once this redraw is laid out
    const doc = st.doc;
    const alerts = FB.alerts(doc, st.status, st.linkUp);
    document.body.dataset.state = alerts.length ? alerts[0].key : "live";
    document.body.dataset.entries = doc ? String(doc.entries) : "";
    fill($("alerts"), ...alerts.map((a) => el("div", { class: `alert ${a.key}`, text: a.text })));
    $("live").textContent = alerts.length ? SAY.notLive : SAY.live;
    $("live").className = "pill " + (alerts.length ? "bad" : "ok");
    $("board").textContent = FB.board;
    if (doc && lastEntries !== null && doc.entries < lastEntries) {
      recent = []; // a new match: the last one's moments and card are over
      saveRecent();
      hideCard();
    }
    if (doc) {
      lastEntries = doc.entries;
      dropUndone(doc);
    }
    if (!doc) {
      fill($("sides"));
      fill($("turn"));
      fill($("flags"));
      fill($("recent"));
      $("match").textContent = "";
      return;
    }
    const score = doc.score;
    const cur = score.current;
    const game = score.game || "pichenotte";
    document.body.dataset.game = game;
    if (game !== "pichenotte") {
      const upName = cur ? cur.to_play || cur.to_flick || cur.to_place_jack : null;
      const up = upName && !score.over ? FB.sideOf(score, upName) : -1;
      const panel = game === "flicochet" ? flicochetPanel : quebecPanel;
      $("match").textContent = otherTop(score);
      fill($("sides"), panel(score, 0, up === 0), panel(score, 1, up === 1));
      fill($("turn"), otherTurnLine(doc));
      fill($("flags"), stateLine(doc));
      fill($("recent"), ...recentLine());
      return;
    }
    const upName = cur && cur.to_shoot ? cur.to_shoot : score.shootout ? score.shootout.to_shoot : null;
    const up = upName ? FB.sideOf(score, upName) : -1;
    const where = cur ? SAY.gameShot(cur.game, Math.min(cur.shots_played + 1, cur.shots_per_game), cur.shots_per_game) : "";
    $("match").textContent = `${SAY.pichenotteTop(FB.rulesText(score.rules), FB.matchText(score.match))}${where}`;
    fill($("sides"), sidePanel(score, cur, 0, up === 0 && !score.over), sidePanel(score, cur, 1, up === 1 && !score.over));
    fill($("turn"), turnLine(doc));
    fill($("flags"), stateLine(doc));
    fill($("recent"), ...recentLine());
  }

  function hideCard() {
    card = null;
    clearTimeout(cardTimer);
    cardTimer = null;
    $("toast").hidden = true;
  }

  // A score pair ("140–55") never breaks across lines.
  function cardWords(text) {
    const parts = text.split(/(\d+–\d+)/).map((part, k) => (k % 2 ? el("span", { class: "nw", text: part }) : part));
    return el("span", { class: "words" }, ...parts.filter((p) => p !== ""));
  }

  // The card over the bars below the panels: as large as fits there, never over a side's numbers.
  function placeCard() {
    const t = $("toast");
    if (t.hidden) return;
    const top = $("sides").getBoundingClientRect().bottom + 4;
    t.style.top = `${top}px`;
    let size = 3.2;
    t.style.fontSize = `${size}em`;
    while (size > 1 && (t.scrollHeight > t.clientHeight + 1 || t.scrollWidth > t.clientWidth + 1)) {
      size -= 0.1;
      t.style.fontSize = `${size.toFixed(2)}em`;
    }
  }

  function showCard(m, text) {
    const rank = FB.cardRank(m);
    const now = Date.now();
    if (card && card.until > now && card.rank > rank) return; // the match's end stays over a game's end
    card = { text, kind: m.type, entry: m.entry, rank, until: now + CARD_MS[rank] };
    const t = $("toast");
    fill(t, cardWords(text));
    t.className = `toast ${m.type}`;
    t.dataset.kind = m.type;
    t.hidden = false;
    placeCard();
    clearTimeout(cardTimer);
    cardTimer = setTimeout(hideCard, CARD_MS[rank]);
  }

  FB.follow(st, render, (m) => {
    const text = FB.momentText(m, true);
    if (!text) return;
    keepRecent(text, m);
    $("toast").dataset.last = text; // the latest moment, whether it got a card or not
    if (FB.cardRank(m) > 0) showCard(m, text);
    render();
  });
  window.addEventListener("resize", placeCard);
  FB.rules().then((info) => {
    st.rules = info;
    render();
  });
  render();
})();
