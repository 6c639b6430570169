"use strict";
// Shared by the TV page and the entry page: the board id, the live stream from `flickboard web`, the "is this live?"
// verdict, and small helpers. The data is the bridge's scoreboard document (docs/mqtt.md), passed on unchanged.

const FB = (() => {
  const board = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");

  // The page's language (docs/translating.md): the sentences come from the server's catalogues (/api/messages), and
  // the language is the one asked for (?lang=, flickboard web --lang), else the game's own (Québec Pichenottes: French),
  // else the browser's, else English. T("{player} to shoot", {player}) says a sentence in it; a sentence the catalogue
  // lacks (or has with other {fields}) stays English. Each page's SAY table says its words through T.
  let speech = { asked: null, browser: null, games: {}, messages: {} };
  let lang = "en";
  let playing = null; // the game on the page, once its scoreboard came
  const asked = new URLSearchParams(location.search).get("lang") || "";
  const browser = (navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""]).join(",");
  const said = fetch(`/api/messages?lang=${encodeURIComponent(asked)}&browser=${encodeURIComponent(browser)}`)
    .then((r) => r.json())
    .then((d) => {
      if (d && d.messages) speech = d;
      speak(playing);
    })
    .catch(() => {});

  // The page's own words (its HTML), as the page was loaded: said again in the page's language when it changes.
  const SAID_ATTRIBUTES = ["placeholder", "title", "aria-label"];
  const squeeze = (text) => text.replace(/\s+/g, " ").trim();
  const statics = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (squeeze(n.data) && n.parentElement && n.parentElement.tagName !== "SCRIPT") statics.push({ node: n, text: squeeze(n.data) });
  }
  for (const node of document.body.querySelectorAll(SAID_ATTRIBUTES.map((a) => `[${a}]`).join(","))) {
    for (const a of SAID_ATTRIBUTES) if (node.hasAttribute(a)) statics.push({ node, attr: a, text: squeeze(node.getAttribute(a)) });
  }
  const title = document.title;

  function speak(game) {
    playing = game || null;
    const was = document.documentElement.lang;
    lang = speech.asked || (speech.games || {})[game] || speech.browser || "en";
    document.documentElement.lang = lang;
    if (was === lang) return;
    for (const s of statics) {
      if (s.attr) s.node.setAttribute(s.attr, T(s.text));
      else s.node.data = s.node.data.replace(/\S[\s\S]*\S|\S/, T(s.text));
    }
    document.title = T(title);
  }

  const fields = (text) => (text.match(/\{[^{}]*\}/g) || []).sort().join();

  // A sentence the server made (`{text, values}`, i18n.said) in the page's language; a plain string as it is.
  function sayIt(s) {
    if (s && typeof s === "object" && typeof s.text === "string") return T(s.text, s.values);
    return s === null || s === undefined ? "" : String(s);
  }

  // A document's `key` in the page's language: its `<key>_said` ({text, values}) when the server sent one (the
  // tournament's views, host/displays/tournament_pages/pages.py), else the text as it came.
  const saidOf = (doc, key) => (doc && doc[`${key}_said`] ? sayIt(doc[`${key}_said`]) : doc ? sayIt(doc[key]) : "");

  function T(text, values) {
    const found = (speech.messages[lang] || {})[text];
    const value = (v) => (v && typeof v === "object" && typeof v.text === "string" ? T(v.text, v.values) : String(v));
    const said = {};
    for (const k of Object.keys(values || {})) said[k] = value(values[k]);
    const template = found && fields(found) === fields(text) ? elide(found, said) : text;
    return template.replace(/\{(\w+)\}/g, (all, k) => (k in said ? said[k] : all));
  }

  // The language's elisions, as host/i18n `elide` makes them (docs/translating.md): "de {player}" with "Éloïse" is
  // "d'{player}". The words come with the catalogues (/api/messages `elisions`).
  const startsWithVowel = (text) => "aeiouy".includes(text.normalize("NFD").charAt(0).toLowerCase() || "-");
  function elide(template, said) {
    const words = (speech.elisions || {})[lang];
    if (!words || !words.length) return template;
    const pattern = new RegExp(`(?<!\\p{L})(${words.join("|")}) \\{(\\w+)\\}`, "giu");
    return template.replace(pattern, (all, word, k) => (k in said && startsWithVowel(said[k]) ? `${word.slice(0, -1)}'{${k}}` : all));
  }

  // A Québec dame's colour as the players say it ("green": "verte" in French).
  function colourWord(colour) {
    if (colour === "green") return T("green");
    if (colour === "red") return T("red");
    return String(colour || "");
  }

  // Every word the shared parts write, in one place (the moments' words are momentText's, below). A plural is one
  // function: plural(1, "game") is "1 game".
  const plural = (n, word) => `${n} ${word}${Number(n) === 1 ? "" : "s"}`;
  const SAY = {
    get connecting() {
      return T("Connecting to the display server…");
    },
    get noConnection() {
      return T("NO CONNECTION to the display server: reconnecting…");
    },
    get brokerLost() {
      return T("NOT LIVE: the display server lost the MQTT broker: reconnecting…");
    },
    get scorerOffline() {
      return T("SCORER OFFLINE: the bridge is not running, scores are not live");
    },
    waiting: (b) => T("Waiting for board {board}'s scoreboard (is a bridge following it?)", { board: b }),
    repeats: (n) => T("The board's last {n} messages were all repeats of ones already counted: nothing new is scored", { n }),
    get boardOffline() {
      return T("BOARD OFFLINE: the sensors are not reporting; enter shots by hand");
    },
    get behind() {
      return T("The board is catching up: some of its events have not arrived yet");
    },
    get shootoutMatch() {
      return T("a twenties shoot-out, 12 pucks each");
    },
    games: (n) => (Number(n) === 1 ? T("1 game") : T("{n} games", { n })),
    firstToPoints: (n) => (Number(n) === 1 ? T("first to 1 point") : T("first to {n} points", { n })),
    firstToWins: (n, of) => {
      const wins = Number(n) === 1 ? T("first to win 1 game") : T("first to win {n} games", { n });
      return of ? T("{wins} of {of}", { wins, of }) : wins;
    },
    kinds: {
      get contact() {
        return T("contact or call a twenty");
      },
      get call() {
        return T("declared twenty");
      },
      get free() {
        return T("free shot");
      },
      get shootout() {
        return T("shoot-out");
      },
    },
    freeShot: (zone) => T("free shot: rest in the {zone} zone", { zone }),
    get contactShot() {
      return T("contact shot");
    },
  };

  // el("div", {class: "x", text: "hi", data: {line: "undo"}}, child, ...)
  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = String(v);
      else if (k === "data") for (const [dk, dv] of Object.entries(v)) node.dataset[dk] = String(dv);
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const kid of kids) if (kid !== null && kid !== undefined && kid !== false) node.append(kid);
    return node;
  }

  function fill(node, ...kids) {
    node.replaceChildren(...kids.filter((k) => k !== null && k !== undefined && k !== false));
  }

  // The stream: `status` ({broker, bridge}) and the latest `scoreboard` at once, then every change and each moment.
  // EventSource reconnects on its own after an error (the server says retry: 2000).
  function connect(on) {
    const es = new EventSource(`/api/${encodeURIComponent(board)}/stream`);
    const parsed = (fn) => (ev) => {
      let data;
      try {
        data = JSON.parse(ev.data);
      } catch (err) {
        return;
      }
      fn(data);
    };
    es.addEventListener("open", () => on.link(true));
    es.addEventListener("error", () => on.link(false));
    es.addEventListener("status", parsed(on.status));
    es.addEventListener("scoreboard", parsed(on.scoreboard));
    es.addEventListener("moment", parsed(on.moment || (() => {})));
    return es;
  }

  // The usual wiring: keep the link state, the status and the scoreboard in `st` and redraw on each change.
  function follow(st, render, moment) {
    said.then(() => {
      speak(st.doc && st.doc.score && st.doc.score.game);
      render();
    });
    return connect({
      link(up) {
        st.linkUp = up;
        render();
      },
      status(s) {
        st.status = s;
        render();
      },
      scoreboard(doc) {
        st.doc = doc;
        speak(doc && doc.score && doc.score.game);
        render();
      },
      moment,
    });
  }

  // Every warning that applies, the most serious first: [{key, text}]. No warning at all means live.
  function alerts(doc, status, linkUp) {
    const out = [];
    if (linkUp === null) {
      out.push({ key: "connecting", text: SAY.connecting });
      return out;
    }
    if (!linkUp) {
      out.push({ key: "disconnected", text: SAY.noConnection });
      return out;
    }
    if (status && status.broker === false) {
      out.push({ key: "disconnected", text: SAY.brokerLost });
    }
    if (status && status.bridge === "offline") {
      out.push({ key: "scorer-offline", text: SAY.scorerOffline });
    }
    if (!doc) {
      out.push({ key: "waiting", text: SAY.waiting(board) });
      return out;
    }
    const link = doc.board_link || {};
    if (link.only_duplicates) {
      const n = link.only_duplicates.count;
      out.push({ key: "repeats", text: SAY.repeats(n) });
    }
    if (link.online === false) {
      out.push({ key: "board-offline", text: SAY.boardOffline });
    } else if (link.online === true && link.in_sync === false) {
      out.push({ key: "behind", text: SAY.behind });
    }
    return out;
  }

  function sideNames(score) {
    return (score.sides || []).map((s) => s.name);
  }

  // The index (0 or 1) of the side a player belongs to, or -1.
  function sideOf(score, player) {
    return (score.sides || []).findIndex((s) => (s.players || []).includes(player));
  }

  function matchText(match) {
    if (match === "shootout") return SAY.shootoutMatch;
    const m = /^(games|wins|points):(\d+)(?:\/(\d+))?(:shootout)?$/.exec(match || "");
    if (!m) return match || "";
    const n = Number(m[2]);
    if (m[1] === "games") return SAY.games(n);
    if (m[1] === "points") return SAY.firstToPoints(n);
    return SAY.firstToWins(n, m[3]);
  }

  const KINDS = SAY.kinds;

  // What a shot must be; `open`: the shot is being played (it is a contact shot, the call is no longer open).
  function kindText(kind, freeZone, open) {
    if (kind === "free" && freeZone) return SAY.freeShot(freeZone);
    if (kind === "contact" && open) return SAY.contactShot;
    return KINDS[kind] || kind || "";
  }

  // A rule set's name in words ("tournament 2019").
  function rulesText(name) {
    return String(name || "").replace(/-/g, " ");
  }

  // One line for a scoring moment (the same vocabulary as host/scoreboard.py moment_text); "" for the quiet ones.
  // `room`: for spectators, who get what happens, not the scorer's check list.
  function momentText(m, room) {
    switch (m.type) {
      case "twenty":
        return m.provisional ? T("TWENTY for {side} (provisional)", { side: m.side }) : T("TWENTY for {side}", { side: m.side });
      case "ditch":
        return room ? T("{side}'s puck into the ditch", { side: m.side }) : T("{side} puck to the ditch ({why})", { side: m.side, why: m.why });
      case "penalty":
        return T("PENALTY: {side} −20", { side: m.side });
      case "forfeit":
        return T("FORFEIT: {side} forfeits the game", { side: m.side });
      case "game-over": {
        if (m.totals) {
          const t = m.totals;
          return T("GAME OVER: {winner} wins {a}–{b}", { winner: m.winner, a: t[0], b: t[1] });
        }
        const p = m.points || ["?", "?"];
        if (m.winner) return T("GAME {game} OVER: {a}–{b}, won by {winner}", { game: m.game, a: p[0], b: p[1], winner: m.winner });
        return T("GAME {game} OVER: {a}–{b}, tied", { game: m.game, a: p[0], b: p[1] });
      }
      case "match-over":
        return T("MATCH OVER: {winner} wins", { winner: m.winner });
      case "shootout":
        return T("TIED: twenties shoot-out");
      case "shootout-shot":
        return m.in ? T("{side}: IN!", { side: m.side }) : T("{side}: missed", { side: m.side });
      case "review":
        return room ? T("The scorer is checking the board") : T("NEEDS REVIEW: {text}", { text: m.text });
      case "edge":
        return T("A puck stands on edge in the hole");
      case "question":
        return room ? "" : T("A question for the players"); // the room reads the question itself on the state line
      case "pocket-evidence":
        return room ? "" : otherMoment(m); // the scorer names the piece; the room waits for the shot
      default:
        return otherMoment(m);
    }
  }

  // Québec Pichenottes and Flicochet moments worth a card (host/scoreboard.py words every one for terminals).
  function otherMoment(m) {
    const p = m.points || ["?", "?"];
    const t = m.totals || ["?", "?"];
    switch (m.type) {
      case "pocket-evidence":
        return T("A piece entered pocket {pocket}: name it", { pocket: m.pocket });
      case "colour":
        return T("{side} plays {colour}", { side: m.side, colour: colourWord(m.colour).toUpperCase() });
      case "compteuse":
        if (m.outcome === "won") return T("COMPTEUSE {value} for {side}", { value: m.value, side: m.side });
        if (m.outcome === "pending") return T("{side}: bury the compteuse {value} now", { value: m.value, side: m.side });
        return T("compteuse {value} back to the centre", { value: m.value });
      case "foul":
        return T("FOUL by {player}", { player: m.player });
      case "manche-over":
        return T("MANCHE {manche} OVER: {a}–{b}", { manche: m.manche, a: p[0], b: p[1] });
      case "tie":
        return T("TIED {a}–{b}: another manche", { a: t[0], b: t[1] });
      case "jack-off":
        return T("JACK OFF THE TABLE: +{penalty} to {to}", { penalty: m.penalty, to: m.to });
      case "jack-place-off":
        return T("The jack left the table while placed");
      case "off":
        return T("A {side} disc is off the table", { side: m.side });
      case "round-over":
        return T("ROUND {round} OVER: red {red}, white {white}", { round: m.round, red: p[0], white: p[1] });
      case "tied-at-target":
        return T("TIED {a}–{b} at the target: another round", { a: t[0], b: t[1] });
      default:
        return "";
    }
  }

  // The scoring-key form (#keyform with its #key field) of every page that needs the key: POST /api/key (the server
  // keeps it in a cookie), then `after(res)` with the server's answer, {ok: true} or {ok: false, error}.
  function keyForm(after) {
    const input = document.getElementById("key");
    document.getElementById("keyform").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const key = input.value.trim();
      if (!key) return;
      let res;
      try {
        const r = await fetch("/api/key", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ key }) });
        res = await r.json();
      } catch (err) {
        res = { ok: false, error: "no answer from the display server: try again" };
      }
      if (res.ok) input.value = "";
      after(res);
    });
  }

  let rulesInfo = null;
  // The rule sets (/api/rules): zone values and the free-shot zone, fetched once.
  async function rules() {
    if (rulesInfo) return rulesInfo;
    try {
      const r = await fetch("/api/rules");
      rulesInfo = await r.json();
    } catch (err) {
      rulesInfo = { rules: [], default: "tournament-2019" };
    }
    return rulesInfo;
  }

  function ruleSet(info, name) {
    return (info && info.rules.find((r) => r.name === name)) || null;
  }

  // The moments that get the TV's big card: what the whole room must see. The others go to the "Last" row only.
  // The rank decides which card stays when two come together: the match's end wins over a game's end, which wins
  // over a twenty.
  const CARD_RANK = {
    "match-over": 3,
    "game-over": 2,
    "manche-over": 2,
    "round-over": 2,
    forfeit: 2,
    twenty: 1,
    penalty: 1,
    shootout: 1,
    "shootout-shot": 1,
    tie: 1,
    "tied-at-target": 1,
    "jack-off": 1,
    compteuse: 1,
  };
  function cardRank(m) {
    if (m.type === "compteuse" && m.outcome !== "won") return 0;
    return CARD_RANK[m.type] || 0;
  }

  return { board, el, fill, T, sayIt, saidOf, speak, ready: said, colourWord, language: () => lang, plural, cardRank, connect, follow, alerts, sideNames, sideOf, matchText, rulesText, kindText, momentText, keyForm, rules, ruleSet };
})();
