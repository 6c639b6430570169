"use strict";
// The hall screen: the room's big screen during a tournament. The event's name, the stage and its round, each board and
// the match it plays (with the board's live score), the matches waiting for a board, the standings of the stage with
// the columns of its tie-break chain, or its bracket. Read every 2 s from /api/tournament/hall. Nothing is ever cut
// off: lists drop what does not fit ("+N more"), the standings go in pages that turn every 10 s (?page=N pins one),
// and a bracket's type shrinks until it fits.

(() => {
  const { el, fill } = FB;
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 2000;
  const PAGE_MS = 10000;
  const pinned = Math.max(0, Number(new URLSearchParams(location.search).get("page")) || 0);
  const st = { view: null, text: "", error: null, page: 0 };

  const who = (m) => (m.sides || []).map((s) => s || "?").join(" v ");
  const FORMATS = { "round-robin": "round robin", swiss: "Swiss", "single-elimination": "single elimination", "double-elimination": "double elimination", pools: "pools" };

  function boardItem(b) {
    const s = b.score;
    let score = "to start";
    if (s && s.totals) score = `${s.totals[0]} – ${s.totals[1]}${s.over ? " · over" : ""}`;
    return el(
      "li",
      { class: "bm" + (s && s.over ? " over" : ""), data: { board: b.board, match: b.match.id } },
      el("span", { class: "bb", text: b.board }),
      el("span", { class: "bwho", text: who(b.match) }),
      el("span", { class: "blabel", text: b.match.label }),
      el("span", { class: "bscore", text: score })
    );
  }

  function waitingItem(m) {
    return el("li", { class: "wm", data: { match: m.id } }, el("span", { class: "blabel", text: m.label }), el("span", { class: "bwho", text: who(m) }));
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

  // Shrink a box's type until what it holds fits across (and down, when `down`), to 40 % at least.
  function shrink(box, down) {
    let size = 100;
    box.style.fontSize = "";
    const over = () => box.scrollWidth > box.clientWidth + 1 || (down && box.scrollHeight > box.clientHeight + 1);
    while (over() && size > 40) {
      size -= 5;
      box.style.fontSize = `${size}%`;
    }
  }

  function standings(view) {
    const tables = view.tables || [];
    const cols = tables.length ? tables[0].columns : [];
    const head = el("tr", {}, el("th", { text: "#" }), el("th", { class: "name", text: "Entrant" }), el("th", { text: "P" }), el("th", { text: "W" }), el("th", { text: "L" }), ...cols.map((c) => el("th", { text: c })));
    const rows = [];
    for (const t of tables) {
      if (t.pool !== null) rows.push(el("tr", { class: "poolhead" }, el("td", { colspan: String(5 + cols.length), text: `Pool ${t.pool}` })));
      for (const r of t.rows) {
        rows.push(
          el(
            "tr",
            { class: `r ${r.status !== "active" ? "out" : ""}`, data: { entrant: r.entrant } },
            el("td", { class: "rank", text: r.tied ? `${r.rank}=` : String(r.rank) }),
            el("td", { class: "name", text: r.status !== "active" ? `${r.entrant} (${r.status})` : r.entrant }),
            el("td", { text: String(r.played) }),
            el("td", { class: "w", text: String(r.wins) }),
            el("td", { text: String(r.losses) }),
            ...r.values.map((v) => el("td", { text: String(v) }))
          )
        );
      }
    }
    const table = el("table", { class: "table" }, el("thead", {}, head), el("tbody", {}, ...rows));
    const box = $("tablebox");
    const chain = view.stage.tiebreaks.length ? `Ties: ${view.stage.tiebreaks.join(", then ")}.` : "";
    const foot = (page, pages) => {
      $("foot").textContent = `${chain}${pages > 1 ? ` Page ${page + 1} of ${pages}.` : ""}`;
    };
    foot(0, 2); // the longest the foot gets, before the box is measured
    fill(box, table);
    shrink(box, false);
    const bottom = box.getBoundingClientRect().bottom;
    let per = 0;
    for (const tr of rows) {
      if (tr.getBoundingClientRect().bottom <= bottom + 0.5) per += 1;
      else break;
    }
    per = Math.max(1, per);
    let pages = 1;
    let page = 0;
    const show = () => {
      pages = Math.max(1, Math.ceil(rows.length / per));
      page = pinned ? Math.min(pinned, pages) - 1 : st.page % pages;
      rows.forEach((tr, i) => {
        tr.hidden = i < page * per || i >= (page + 1) * per;
      });
      foot(page, pages);
    };
    show();
    while (per > 1 && box.scrollHeight > box.clientHeight + 1) {
      per -= 1;
      show();
    }
    document.body.dataset.page = String(page + 1);
    document.body.dataset.pages = String(pages);
  }

  function bracket(view) {
    const box = $("tablebox");
    const sections = (view.bracket || []).map((s) =>
      el(
        "div",
        { class: "section" },
        el("h3", { text: s.section }),
        el(
          "div",
          { class: "rounds" },
          ...s.rounds.map((r) =>
            el(
              "div",
              { class: "round" },
              ...r.matches.map((m) =>
                el(
                  "div",
                  { class: `bx ${m.state}`, data: { match: m.id } },
                  el("span", { class: "blabel", text: m.label + (m.board ? ` · ${m.board}` : "") }),
                  ...m.sides.map((s2, i) => el("span", { class: "bs" + (m.winner && m.winner === s2 ? " won" : ""), text: `${s2 || "…"}${m.points && m.state === "done" ? ` ${m.points[i]}` : ""}` }))
                )
              )
            )
          )
        )
      )
    );
    fill(box, el("div", { class: "bracket" }, ...sections));
    shrink(box, true);
    document.body.dataset.page = "1";
    document.body.dataset.pages = "1";
    $("foot").textContent = view.champion ? `Champion: ${view.champion}` : "";
  }

  function render() {
    const v = st.view;
    document.body.dataset.state = st.error ? "disconnected" : v ? "live" : "connecting";
    $("live").textContent = st.error ? "NOT LIVE" : "LIVE";
    $("live").className = "pill " + (st.error ? "bad" : "ok");
    $("conn").hidden = !st.error;
    $("conn").textContent = st.error || "";
    if (!v) return;
    document.body.dataset.entries = String(v.entries);
    $("name").textContent = v.name;
    const s = v.stage;
    $("stage").textContent = s ? `${s.name} · ${FORMATS[s.format] || s.format} · round ${s.round}${s.rounds ? ` of ${s.rounds}` : ""}${s.complete ? " · complete" : ""}` : "no stage started yet";
    fit($("boards"), v.boards.map(boardItem), (n) => `+${n} more boards`);
    fit($("waiting"), v.waiting.length ? v.waiting.map(waitingItem) : [el("li", { class: "none", text: "none" })], (n) => `+${n} more waiting`);
    if (!s) {
      fill($("tablebox"));
      $("sthead").textContent = "Standings";
    } else if (v.bracket) {
      $("sthead").textContent = "Bracket";
      bracket(v);
    } else {
      $("sthead").textContent = `Standings · ${s.name}`;
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
      st.error = "no answer from the display server: trying again";
    }
    render();
    setTimeout(poll, EVERY_MS);
  }

  setInterval(() => {
    st.page += 1;
    if (st.view && !pinned && Number(document.body.dataset.pages || "1") > 1) render();
  }, PAGE_MS);
  addEventListener("resize", render);
  render();
  poll();
})();
