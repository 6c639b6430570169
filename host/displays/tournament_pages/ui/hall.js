"use strict";
// The hall screen: the room's big screen during a tournament, read from 5 m. The event's name, the stage and how far
// it has gone, the champion as the headline once there is one, what the room must know about the boards (a game in
// progress that keeps a match waiting, a board that refused a match), each board and the match it plays (with the
// board's live score), the matches waiting for a board, and the stage's standings (the columns of `flickboard
// tournament standings`) or its bracket, each round named. A QR code takes a player's phone to the list of entrants.
// Read every 2 s from /api/tournament/hall.
//
// Every text is at least 3.5 % of the screen's height (the stylesheet's `body.hall`), so nothing ever shrinks to fit:
// lists drop what does not fit ("+N more"), and the standings and the bracket go in pages that turn every 10 s
// (?page=N pins one, for a second screen).

(() => {
  const { el, fill, T, saidOf, sayIt } = FB;
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 2000;
  const PAGE_MS = 10000;
  const pinned = Math.max(0, Number(new URLSearchParams(location.search).get("page")) || 0);
  const st = { view: null, text: "", error: null, page: 0 };

  // Every word the screen writes, in the page's language (docs/translating.md); the server's sentences come as
  // `<key>_said` beside their English (views.py `with_said`), said with FB.saidOf.
  const SAY = {
    get toStart() {
      return T("to start");
    },
    get waits() {
      return T("waits");
    },
    scoreOver: (a, b) => T("{a} – {b} · over", { a, b }),
    get none() {
      return T("none");
    },
    moreNotices: (n) => T("+{n} more on the organiser's page", { n }),
    moreBoards: (n) => T("+{n} more boards", { n }),
    moreWaiting: (n) => T("+{n} more waiting", { n }),
    page: (page, pages) => T("Page {page} of {pages}.", { page, pages }),
    ties: (keys) => T("Ties: {keys}.", { keys }),
    pool: (pool) => T("Pool {pool}", { pool }),
    get toCome() {
      return T("to come");
    },
    get walkover() {
      return T("w/o");
    },
    get bye() {
      return T("bye");
    },
    get live() {
      return T("LIVE");
    },
    get notLive() {
      return T("NOT LIVE");
    },
    get noStage() {
      return T("no stage started yet");
    },
    champion: (name) => T("Champion: {name}", { name }),
    bracket: (stage) => T("Bracket · {stage}", { stage }),
    standings: (stage) => T("Standings · {stage}", { stage }),
    get standingsHead() {
      return T("Standings");
    },
    get noAnswer() {
      return T("no answer from the display server: trying again");
    },
  };

  const who = (m) => (m.sides || []).map((s) => s || "…").join(" v ");
  const list = (doc, key) => (doc[`${key}_said`] || doc[key] || []).map(sayIt);

  function boardItem(b) {
    const s = b.score;
    let score = SAY.toStart;
    if (b.busy) score = SAY.waits;
    else if (s && s.totals) score = s.over ? SAY.scoreOver(s.totals[0], s.totals[1]) : `${s.totals[0]} – ${s.totals[1]}`;
    // What the board is playing now, in words (the scoreboard's `now_sentence`): while its game is on.
    const now = s && !s.over && !b.busy ? saidOf(s, "now") : "";
    return el(
      "li",
      { class: "bm" + (s && s.over ? " over" : "") + (b.busy ? " busy" : ""), data: { board: b.board, match: b.match.id } },
      el("span", { class: "bb", text: b.board }),
      el("span", { class: "bwho", text: who(b.match) }),
      el("span", { class: "bscore", text: score }),
      now ? el("span", { class: "bnow", text: now }) : null
    );
  }

  function waitingItem(m) {
    return el("li", { class: "wm", data: { match: m.id } }, el("span", { class: "bwho", text: who(m) }));
  }

  function noticeItem(n) {
    return el("li", { class: `notice ${n.kind}`, data: { board: n.board, match: n.match } }, saidOf(n, "text"));
  }

  // Drop the last items of a list until it fits its box, saying how many are not shown.
  function fit(list, items, more) {
    fill(list, ...items);
    let shown = items.length;
    while (shown > 0 && list.scrollHeight > list.clientHeight + 1) {
      shown -= 1;
      fill(list, ...items.slice(0, shown), el("li", { class: "more", text: more(items.length - shown) }));
    }
  }

  // Split `rows` (the box's page units, in order) into pages that fit the box: [first, end) each. A heading (class
  // "head") never ends a page: it goes to the next one with what it heads.
  function pagesOf(box, rows) {
    const pages = [];
    let i = 0;
    while (i < rows.length) {
      rows.forEach((r, j) => {
        r.hidden = j < i;
      });
      const bottom = box.getBoundingClientRect().bottom;
      let k = 0;
      for (let j = i; j < rows.length && rows[j].getBoundingClientRect().bottom <= bottom + 0.5; j++) k += 1;
      k = Math.max(1, k);
      const show = () =>
        rows.forEach((r, j) => {
          r.hidden = j < i || j >= i + k;
        });
      show();
      while (k > 1 && box.scrollHeight > box.clientHeight + 1) {
        k -= 1;
        show();
      }
      while (k > 1 && rows[i + k - 1].classList.contains("head")) {
        k -= 1;
        show();
      }
      pages.push([i, i + k]);
      i += k;
    }
    return pages.length ? pages : [[0, 0]];
  }

  // Show one page of the box's rows (the pinned one, or the one the clock has turned to), and say which.
  function paged(box, rows, foot) {
    const pages = pagesOf(box, rows);
    const page = pinned ? Math.min(pinned, pages.length) - 1 : st.page % pages.length;
    const [a, b] = pages[page];
    rows.forEach((r, j) => {
      r.hidden = j < a || j >= b;
    });
    document.body.dataset.page = String(page + 1);
    document.body.dataset.pages = String(pages.length);
    $("foot").textContent = [foot, pages.length > 1 ? SAY.page(page + 1, pages.length) : ""].filter(Boolean).join(" ");
  }

  function headRow(cols) {
    return el("tr", { class: "head cols" }, ...cols.map((c, i) => el("th", { class: i === 1 ? "name" : null, text: T(c) })));
  }

  function standings(view) {
    const tables = view.tables || [];
    const same = tables.every((t) => JSON.stringify(t.columns) === JSON.stringify(tables[0].columns));
    const rows = [];
    for (const t of tables) {
      if (t.pool !== null) rows.push(el("tr", { class: "head poolhead" }, el("td", { colspan: String(t.columns.length), text: SAY.pool(t.pool) })));
      if (!same) rows.push(headRow(t.columns));
      const w = t.columns.indexOf("W");
      for (const r of t.rows) {
        rows.push(
          el(
            "tr",
            { class: `r ${r.status !== "active" ? "out" : ""}`, data: { entrant: r.entrant } },
            ...list(r, "cells").map((c, i) => el("td", { class: i === 0 ? "rank" : i === 1 ? "name" : i === w ? "w" : null, text: c }))
          )
        );
      }
    }
    const head = same && tables.length ? el("thead", {}, headRow(tables[0].columns)) : null;
    const box = $("tablebox");
    fill(box, el("table", { class: "table" }, head, el("tbody", {}, ...rows)));
    const chain = view.stage.tiebreaks.length ? SAY.ties(list(view.stage, "tiebreaks").join(", ")) : "";
    $("foot").textContent = `${chain} ${SAY.page(1, 2)}`; // the longest the foot gets, before the box is measured
    paged(box, rows, chain);
  }

  function sideCell(m, i) {
    const name = m.sides[i];
    const none = m.state === "bye" || m.state === "void" ? "" : SAY.toCome; // a bye has nobody on its other side
    return el("span", { class: "bs" + (m.winner && m.winner === name ? " won" : "") + (name ? "" : " tbd"), text: name || none });
  }

  function scoreText(m) {
    if (m.state === "done" && m.score) return m.score;
    if (m.state === "walkover") return SAY.walkover;
    if (m.state === "bye") return SAY.bye;
    return "v";
  }

  function bracket(view) {
    const box = $("tablebox");
    const rows = [];
    const sections = view.bracket || [];
    for (const s of sections) {
      if (sections.length > 1) rows.push(el("div", { class: "head section", text: saidOf(s, "section") }));
      for (const r of s.rounds) {
        rows.push(el("div", { class: "head roundname", text: saidOf(r, "name") }));
        for (const m of r.matches) {
          rows.push(
            el(
              "div",
              { class: `bx ${m.state}`, data: { match: m.id } },
              sideCell(m, 0),
              el("span", { class: "bsc", text: scoreText(m) }),
              sideCell(m, 1),
              el("span", { class: "bwhere", text: m.board && !m.winner ? m.board : "" })
            )
          );
        }
      }
    }
    fill(box, el("div", { class: "bracket" }, ...rows));
    $("foot").textContent = SAY.page(1, 2);
    paged(box, rows, "");
  }

  function render() {
    const v = st.view;
    document.body.dataset.state = st.error ? "disconnected" : v ? "live" : "connecting";
    if (v) FB.speak(v.game); // the tournament's game's language (Québec Pichenottes: French), unless one was asked for
    $("live").textContent = st.error ? SAY.notLive : SAY.live;
    $("live").className = "pill " + (st.error ? "bad" : "ok");
    $("conn").hidden = !st.error;
    $("conn").textContent = st.error || "";
    if (!v) return;
    document.body.dataset.entries = String(v.entries);
    $("name").textContent = v.name;
    const s = v.stage;
    $("stage").textContent = s ? `${s.name} · ${saidOf(s, "format_name")} · ${saidOf(s, "progress")}` : SAY.noStage;
    $("champion").hidden = !v.champion;
    $("champion").textContent = v.champion ? SAY.champion(v.champion) : "";
    if (v.qr && $("qr").getAttribute("src") !== v.qr) $("qr").setAttribute("src", v.qr);
    $("qrbox").hidden = !v.qr;
    $("qrbox").dataset.url = v.entrants_url || "";
    $("notices").hidden = !v.notices.length;
    document.body.dataset.notices = String(v.notices.length);
    if (v.notices.length) fit($("notices"), v.notices.map(noticeItem), SAY.moreNotices);
    // The two lists share the panel: each is fitted twice, so that each is fitted to the room the other leaves it.
    for (let pass = 0; pass < 2; pass++) {
      fit($("boards"), v.boards.length ? v.boards.map(boardItem) : [el("li", { class: "none", text: SAY.none })], SAY.moreBoards);
      fit($("waiting"), v.waiting.length ? v.waiting.map(waitingItem) : [el("li", { class: "none", text: SAY.none })], SAY.moreWaiting);
    }
    if (!s) {
      fill($("tablebox"));
      $("foot").textContent = "";
      $("sthead").textContent = SAY.standingsHead;
    } else if (v.bracket) {
      $("sthead").textContent = SAY.bracket(s.name);
      bracket(v);
    } else {
      $("sthead").textContent = SAY.standings(s.name);
      standings(v);
    }
  }

  async function poll() {
    try {
      const r = await fetch("/api/tournament/hall");
      const text = await r.text();
      if (!r.ok) throw new Error(text);
      st.error = null;
      if (text !== st.text) {
        st.text = text;
        st.view = JSON.parse(text);
      }
    } catch (err) {
      st.error = SAY.noAnswer;
    }
    render();
    setTimeout(poll, EVERY_MS);
  }

  setInterval(() => {
    st.page += 1;
    if (st.view && !pinned && Number(document.body.dataset.pages || "1") > 1) render();
  }, PAGE_MS);
  addEventListener("resize", render);
  FB.ready.then(render); // once the page knows its language
  render();
  poll();
})();
