"use strict";
// The TV scoreboard: one board's scoreboard document, drawn big, redrawn on every change.

(() => {
  const { el, fill } = FB;
  const st = { doc: null, status: null, linkUp: null, rules: null };
  const $ = (id) => document.getElementById(id);
  const toasts = [];
  let toastTimer = null;

  function sidePanel(score, cur, i, up) {
    const side = score.sides[i];
    const name = side.name;
    const prov = cur ? cur.provisional_twenties.filter((p) => p.side === name).length : 0;
    const won = score.games_won ? score.games_won[i] : 0;
    const players = side.players.length > 1 ? side.players.join(" + ") : "";
    const stat = (label, value) => el("div", { class: "stat" }, el("span", { class: "n", text: value }), el("span", { class: "l", text: label }));
    const games = (score.games || []).slice(-8);
    return el(
      "section",
      { class: `side s${i}` + (up ? " up" : ""), id: `side${i}` },
      el("div", { class: "head" }, el("h2", { class: "name", text: name }), up ? el("span", { class: "tag", text: "TO SHOOT" }) : null),
      players ? el("div", { class: "players", text: players }) : null,
      el(
        "div",
        { class: "row1" },
        el("div", { class: "total" }, el("span", { class: "n", text: score.totals[i] }), el("span", { class: "l", text: "match points" })),
        cur
          ? el(
              "div",
              { class: "twenties" },
              el("span", { class: "n", text: cur.twenties[i] }),
              el("span", { class: "l", text: cur.twenties[i] === 1 ? "twenty" : "twenties" }),
              prov ? el("span", { class: "prov", text: `${prov} provisional` }) : null
            )
          : null
      ),
      cur ? el("div", { class: "pucks" }, stat("in hand", cur.in_hand[i]), stat("on board", cur.on_board[i]), stat("in ditch", cur.in_ditch[i])) : null,
      el(
        "div",
        { class: "games" },
        el("span", { class: "l", text: `${won} ${won === 1 ? "game" : "games"} won` }),
        ...games.map((g) => el("span", { class: g.winner === name ? "g won" : "g", text: g.points[i] }))
      ),
      cur && cur.penalties[i] ? el("div", { class: "penalty", text: `penalty −${cur.penalties[i]}` }) : null
    );
  }

  function turnLine(doc) {
    const score = doc.score;
    const cur = score.current;
    const rs = FB.ruleSet(st.rules, score.rules);
    const freeZone = rs ? rs.free_shot_zone : null;
    if (score.over) {
      return el("div", { class: "over" }, el("b", { text: "MATCH OVER" }), ` ${score.winner} wins`);
    }
    const so = score.shootout;
    if (so) {
      const names = FB.sideNames(score);
      const tally = names.map((n, i) => `${n} ${so.twenties[i]}/${so.shots[i]}`).join(" · ");
      return el(
        "div",
        {},
        el("b", { text: `SHOOT-OUT (${so.purpose === "game" ? "this game" : "the match"})` }),
        ` ${tally}` + (so.to_shoot ? ` · ${so.to_shoot} to shoot` : "")
      );
    }
    if (!cur) return el("div", { text: "" });
    const shot = doc.open_shot;
    if (shot) {
      const facts = shot.facts.length ? ` · so far: ${shot.facts.join(" ")}` : "";
      return el("div", {}, el("b", { text: `${shot.player} shooting` }), ` · ${FB.kindText(shot.kind, freeZone, true)}${facts}`);
    }
    if (cur.to_shoot) {
      const next = `${cur.to_shoot} to shoot`;
      const declared = doc.declared ? " · TWENTY DECLARED" : "";
      return el("div", {}, el("b", { text: next }), ` · ${FB.kindText(cur.shot_kind, freeZone)}${declared}`);
    }
    return el("div", {}, el("b", { text: "Game over" }), " · enter the zones");
  }

  function flags(doc) {
    const out = [];
    for (const q of doc.score.questions || []) out.push(el("div", { class: "flag q", text: `? ${q.text}` }));
    for (const r of doc.review || []) out.push(el("div", { class: "flag review", text: `NEEDS REVIEW: ${r.text}` }));
    if (doc.waiting) {
      const queued = doc.queued > 1 ? ` (${doc.queued} board events waiting)` : "";
      out.push(el("div", { class: "flag wait", text: `WAITING: ${doc.waiting.text}${queued}` }));
    } else if (doc.queued && doc.needs_review) {
      out.push(el("div", { class: "flag wait", text: `${doc.queued} board events wait for the review` }));
    }
    for (const c of doc.checks || []) out.push(el("div", { class: "flag wait", text: `CHECK: ${c}` }));
    if (doc.declared && doc.open_shot) out.push(el("div", { class: "flag info", text: "A twenty is declared for the next shot" }));
    return out;
  }

  function render() {
    const doc = st.doc;
    const alerts = FB.alerts(doc, st.status, st.linkUp);
    document.body.dataset.state = alerts.length ? alerts[0].key : "live";
    document.body.dataset.entries = doc ? String(doc.entries) : "";
    fill($("alerts"), ...alerts.map((a) => el("div", { class: `alert ${a.key}`, text: a.text })));
    $("live").textContent = alerts.length ? "NOT LIVE" : "LIVE";
    $("live").className = "pill " + (alerts.length ? "bad" : "ok");
    $("board").textContent = FB.board;
    if (!doc) {
      fill($("sides"));
      fill($("turn"));
      fill($("flags"));
      $("match").textContent = "";
      return;
    }
    const score = doc.score;
    const cur = score.current;
    const upName = cur && cur.to_shoot ? cur.to_shoot : score.shootout ? score.shootout.to_shoot : null;
    const up = upName ? FB.sideOf(score, upName) : -1;
    const where = cur ? ` · game ${cur.game} · shot ${Math.min(cur.shots_played + 1, cur.shots_per_game)}/${cur.shots_per_game}` : "";
    $("match").textContent = `${score.rules} · ${FB.matchText(score.match)}${where}`;
    fill($("sides"), sidePanel(score, cur, 0, up === 0 && !score.over), sidePanel(score, cur, 1, up === 1 && !score.over));
    fill($("turn"), turnLine(doc));
    fill($("flags"), ...flags(doc));
  }

  function showToast() {
    if (toastTimer || !toasts.length) return;
    const t = $("toast");
    const m = toasts.shift();
    t.textContent = m.text;
    t.className = `toast ${m.kind}`;
    t.hidden = false;
    toastTimer = setTimeout(() => {
      t.hidden = true;
      toastTimer = null;
      showToast();
    }, 3500);
  }

  FB.follow(st, render, (m) => {
    const text = FB.momentText(m);
    if (!text) return;
    toasts.push({ text, kind: m.type });
    if (toasts.length > 5) toasts.splice(0, toasts.length - 5);
    showToast();
  });
  FB.rules().then((info) => {
    st.rules = info;
    render();
  });
  render();
})();
