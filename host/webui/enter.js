"use strict";
// The scorer's entry page: every button sends one line of the notation (docs/transcript.md), or a new match,
// through POST /api/<board>/input; `flickboard web` passes it to the bridge and returns the bridge's answer.

(() => {
  const { el, fill } = FB;
  const $ = (id) => document.getElementById(id);
  const st = { doc: null, status: null, linkUp: null, rules: null, picks: {}, armed: null, busy: false, prefilled: false };
  const ARM_MS = 4000;
  const DEFAULT_VALUES = [5, 10, 15, 25, 50, 0, "edge"];

  // ---- sending

  function showAnswer(text, kind) {
    const a = $("answer");
    a.textContent = text;
    a.className = `answer ${kind}`;
    a.dataset.ok = kind === "ok" ? "true" : kind === "busy" ? "" : "false";
    a.hidden = false;
  }

  async function send(req, label) {
    if (st.busy) return null;
    st.busy = true;
    document.body.classList.add("busy");
    showAnswer(`Sending ${label}…`, "busy");
    let res = null;
    try {
      const r = await fetch(`/api/${encodeURIComponent(FB.board)}/input`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(req),
      });
      res = await r.json();
    } catch (err) {
      res = { ok: false, error: "no answer from the display server: check the scoreboard before sending it again" };
    }
    st.busy = false;
    document.body.classList.remove("busy");
    if (res.ok) {
      showAnswer(`✓ ${res.entry ? `[${res.entry}] ` : ""}${res.message}`, "ok");
    } else if (res.error) {
      showAnswer(`✗ ${res.error}`, "bad");
    } else if (res.entry) {
      showAnswer(`✗ Refused: ${res.message}`, "bad");
    } else {
      showAnswer(`✗ ${res.message}`, "bad");
    }
    return res;
  }

  const sendLine = (line) => send({ line }, line);

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
        text: armed ? `Tap again: ${label}` : label,
      },
    );
  }

  function summary(doc) {
    const score = doc.score;
    const names = FB.sideNames(score);
    const cur = score.current;
    const where = cur ? `game ${cur.game} · shot ${Math.min(cur.shots_played + 1, cur.shots_per_game)}/${cur.shots_per_game}` : "";
    const twenties = cur ? ` · twenties ${cur.twenties[0]}–${cur.twenties[1]}` : "";
    return [
      el(
        "div",
        { class: "score" },
        el("span", { class: "s0", text: `${names[0]} ${score.totals[0]}` }),
        " – ",
        el("span", { class: "s1", text: `${score.totals[1]} ${names[1]}` })
      ),
      el("div", { class: "where", text: `${where}${twenties}` }),
    ];
  }

  function nowLine(doc) {
    const score = doc.score;
    const cur = score.current;
    const rs = FB.ruleSet(st.rules, score.rules);
    const freeZone = rs ? rs.free_shot_zone : null;
    if (score.over) return `Match over: ${score.winner} wins. Start a new match below.`;
    const qs = score.questions || [];
    if (qs.some((q) => q.kind === "zones")) return "Every puck is shot: enter the zones of each side's pucks.";
    if (qs.length) return `Answer: ${qs[0].text}`;
    if (score.shootout) return `${score.shootout.to_shoot} to shoot · SHOOT-OUT: in or missed?`;
    if (!cur) return "";
    if (doc.open_shot) {
      const s = doc.open_shot;
      const facts = s.facts.length ? ` (so far: ${s.facts.join(" ")})` : "";
      return `${s.player}'s shot is open · ${FB.kindText(s.kind, freeZone, true)}${facts}`;
    }
    if (cur.to_shoot) return `${cur.to_shoot} to shoot · ${FB.kindText(cur.shot_kind, freeZone)}`;
    return "No shot is due.";
  }

  function questionCards(doc) {
    const out = [];
    for (const q of doc.score.questions || []) {
      if (q.kind === "zones") continue;
      out.push(
        el(
          "div",
          { class: "card q" },
          el("p", { class: "qtext", text: q.text }),
          el("div", { class: "grid2" }, ...q.answers.map((a) => lineButton(a, a, { cls: "big" })))
        )
      );
    }
    if (doc.score.shootout) {
      out.push(
        el(
          "div",
          { class: "card q" },
          el("p", { class: "qtext", text: `Shoot-out: ${doc.score.shootout.to_shoot}'s shot at the hole` }),
          el("div", { class: "grid2" }, lineButton("In", "shot in", { cls: "big" }), lineButton("Missed", "shot miss", { cls: "big" }))
        )
      );
    }
    return out;
  }

  function zoneValues(doc) {
    const rs = FB.ruleSet(st.rules, doc.score.rules);
    return rs ? rs.zone_values : DEFAULT_VALUES;
  }

  function zoneCards(doc) {
    const score = doc.score;
    const names = FB.sideNames(score);
    const cur = score.current;
    const out = [];
    const open = new Set();
    for (const q of score.questions || []) {
      if (q.kind !== "zones") continue;
      const side = q.side;
      const i = names.indexOf(side);
      const example = (q.answers[0] || "").split(/\s+/).length - 2;
      const count = cur && i >= 0 ? cur.on_board[i] : Math.max(0, example);
      open.add(side);
      const picks = (st.picks[side] || []).slice(0, count);
      st.picks[side] = picks;
      const full = picks.length >= count;
      const chips = picks.map((v, k) =>
        el("button", { type: "button", class: "chip", data: { act: "zone-del", side, index: k }, text: String(v), title: "remove" })
      );
      for (let k = picks.length; k < count; k++) chips.push(el("span", { class: "chip empty", text: "·" }));
      out.push(
        el(
          "div",
          { class: `card zones s${i}`, data: { side } },
          el("h2", { text: `Zones: ${side}` }),
          el("p", { class: "count", text: `${picks.length} of ${count} ${count === 1 ? "puck" : "pucks"} on the board` }),
          el("div", { class: "chips" }, ...chips),
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
            el("button", { type: "button", data: { act: "zone-back", side }, disabled: !picks.length, text: "⌫ Back" }),
            el("button", { type: "button", data: { act: "zone-clear", side }, disabled: !picks.length, text: "Clear" }),
            el("button", { type: "button", class: "primary", data: { act: "zone-send", side }, disabled: !full, text: `Send ${side}'s zones` })
          )
        )
      );
    }
    for (const side of Object.keys(st.picks)) if (!open.has(side)) delete st.picks[side];
    return out;
  }

  function provisionalCards(doc) {
    const score = doc.score;
    const cur = score.current;
    if (!cur || !cur.provisional_twenties.length) return [];
    const names = FB.sideNames(score);
    const out = cur.provisional_twenties.map((p) => {
      const other = names.find((n) => n !== p.side);
      return el(
        "div",
        { class: "card prov" },
        el("p", { class: "qtext", text: `Twenty for ${p.side}? (entry ${p.entry}, from the hole sensor)` }),
        el(
          "div",
          { class: "grid3" },
          lineButton("Confirm", `confirm ${p.entry}`, { cls: "primary" }),
          lineButton(`It was ${other}'s puck`, `correct ${p.entry} ${other}:in`),
          lineButton("No twenty", `correct ${p.entry} -`)
        )
      );
    });
    if (cur.provisional_twenties.length > 1) out.push(lineButton("Confirm all twenties", "confirm", { cls: "primary" }));
    return out;
  }

  function reviewCards(doc) {
    const items = [];
    for (const r of doc.review || []) items.push(el("li", { class: "review", text: `NEEDS REVIEW: ${r.text}` }));
    if (doc.waiting) items.push(el("li", { class: "wait", text: `Waiting: ${doc.waiting.text}` }));
    for (const c of doc.checks || []) items.push(el("li", { class: "wait", text: `Check: ${c}` }));
    if (!items.length) return [];
    const buttons = [];
    if (doc.needs_review) buttons.push(lineButton("Reviewed: go on", "reviewed", { cls: "primary" }));
    if (doc.queued) buttons.push(lineButton("Dismiss the board event", "dismiss", { confirm: true, cls: "warn" }));
    return [el("div", { class: "card attention" }, el("ul", {}, ...items), el("div", { class: "grid2" }, ...buttons))];
  }

  function penaltyButtons(doc) {
    return FB.sideNames(doc.score).map((n) => lineButton(`Penalty ${n} (−20)`, `penalty ${n}`, { confirm: true, cls: "warn" }));
  }

  function refreshStatic(doc) {
    // The buttons written in enter.html: the two-tap state, and which shot words fit now.
    for (const b of document.querySelectorAll("#more button[data-confirm]")) {
      if (!b.dataset.label) b.dataset.label = b.textContent;
      const armed = isArmed(b.dataset.line);
      b.classList.toggle("armed", armed);
      b.textContent = armed ? `Tap again: ${b.dataset.label}` : b.dataset.label;
    }
    const newArmed = isArmed("new");
    $("new-start").classList.toggle("armed", newArmed);
    $("new-start").textContent = newArmed ? "Tap again: start a new match" : "Start a new match";
    const cur = doc && doc.score.current;
    const shot = doc && doc.open_shot;
    const kind = shot ? shot.kind : cur ? cur.shot_kind : null;
    for (const b of document.querySelectorAll("#shot button[data-line]")) {
      const w = b.dataset.line;
      const fits = (kind === "contact" && (w === "hit" || w === "miss")) || (kind === "free" && (w === "zone" || w === "short"));
      b.classList.toggle("primary", fits);
    }
    $("declare-this").hidden = !shot;
  }

  function prefill(doc) {
    const sel = $("new-rules");
    if (st.rules && !sel.options.length) {
      for (const r of st.rules.rules) sel.append(el("option", { value: r.name, text: r.name }));
      sel.value = st.rules.default;
    }
    if (!doc || st.prefilled || !sel.options.length) return;
    st.prefilled = true;
    sel.value = doc.score.rules;
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
    $("live").textContent = alerts.length ? "NOT LIVE" : "LIVE";
    $("live").className = "pill " + (alerts.length ? "bad" : "ok");
    fill($("alerts"), ...alerts.map((a) => el("div", { class: `alert ${a.key}`, text: a.text })));
    prefill(doc);
    refreshStatic(doc);
    if (!doc) {
      for (const id of ["summary", "now", "questions", "zones", "provisional", "review", "penalties"]) fill($(id));
      return;
    }
    fill($("summary"), ...summary(doc));
    $("now").textContent = nowLine(doc);
    fill($("questions"), ...questionCards(doc));
    fill($("zones"), ...zoneCards(doc));
    fill($("provisional"), ...provisionalCards(doc));
    fill($("review"), ...reviewCards(doc));
    fill($("penalties"), ...penaltyButtons(doc));
  }

  // ---- input

  document.addEventListener("click", (ev) => {
    const b = ev.target.closest("button");
    if (!b || b.disabled || b.type === "submit") return;
    const d = b.dataset;
    if (d.line) {
      if (d.confirm) armedOrSend(d.line, () => sendLine(d.line));
      else sendLine(d.line);
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
      const line = picks.length ? `zones ${side} ${picks.join(" ")}` : `zones ${side}`;
      sendLine(line).then((res) => {
        if (res && res.ok) delete st.picks[side];
        render();
      });
    }
    render();
  });

  $("free").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const inp = $("free-line");
    const line = inp.value.trim();
    if (!line) return;
    sendLine(line).then((res) => {
      if (res && res.ok) inp.value = "";
    });
  });

  $("new-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const players = [1, 2, 3, 4].map((k) => $(`new-p${k}`).value.trim()).filter(Boolean);
    const req = { players, rules: $("new-rules").value || undefined };
    const match = $("new-match").value.trim();
    if (match) req.match = match;
    armedOrSend("new", () => send({ new: req }, "a new match"));
  });

  FB.follow(st, render);
  FB.rules().then((info) => {
    st.rules = info;
    render();
  });
  render();
})();
