"use strict";
// The organiser's page: pair the next round, put matches on boards (or let the next free boards take the next
// matches), enter or correct a result, approve or dismiss a board's result held for the organiser, withdraw an
// entrant. Every act is one POST to /api/tournament/act (scoring key), answered in one line; the event is read every
// 2 s from /api/tournament/organiser. While a field is being typed in, the page is not redrawn under it.

(() => {
  const { el, fill } = FB;
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 2000;
  const st = { view: null, text: "", error: null, key: true, timer: null };

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
    document.body.dataset.acts = String(Number(document.body.dataset.acts || "0") + 1);
    st.text = "";
    poll(true);
  }

  const who = (m) => m.sides.join(" v ");

  // A tie-break shoot-out match (`<stage>/SO<round>-<k>`): its result is each side's twenties (R-1-B).
  const shootout = (m) => /\/SO\d+-\d+$/.test(m.id);

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

  function matchRow(m) {
    const done = m.state === "done" || m.state === "walkover";
    const result = done ? `${m.winner} wins${m.score ? ` ${m.score}` : ""}${m.walkover ? " (walkover)" : ""}${m.source ? ` · ${m.source}` : ""}` : m.board ? `on ${m.board}` : "waiting for a board";
    const winner = el("select", { class: "winner", "aria-label": "winner" }, el("option", { value: "", text: "winner…" }), ...m.sides.map((s) => el("option", { value: s, text: s, selected: done && m.winner === s })));
    const cells = [
      el("td", { class: "mid", text: m.id }),
      el("td", { class: "who", text: who(m) }),
      el("td", { class: "res", text: result }),
      el(
        "td",
        { class: "forms" },
        !done && !m.board ? el("span", { class: "assign" }, el("input", { class: "board", placeholder: "board", "aria-label": "board", maxlength: "32" }), el("button", { type: "button", data: { do: "assign" }, text: "Assign" })) : null,
        el("span", { class: "result" }, winner, el("input", { class: "points", placeholder: shootout(m) ? "twenties 9-8" : "points 310-250", "aria-label": shootout(m) ? "the shoot-out's twenties" : "points", maxlength: "20" }), el("button", { type: "button", class: done ? "warn" : "primary", data: { do: done ? "correct" : "result" }, text: done ? "Correct" : "Record" }))
      ),
    ];
    return el("tr", { class: m.state, data: { match: m.id } }, ...cells);
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
    $("hallstate").textContent = `${v.stage ? `Stage ${v.stage.name}, round ${v.stage.round}. ` : "No stage started yet. "}${v.hall.text}`;
    document.body.dataset.hall = v.hall.state;
    $("pair").disabled = !v.can_pair;
    $("nextup").textContent = v.next ? `next up: ${v.next}` : "no match is ready to start";
    fill($("held"), ...v.held.map(heldCard));
    document.body.dataset.held = String(v.held.length);
    fill($("boards"), ...(v.boards.length ? v.boards.map((b) => el("li", { data: { board: b.board } }, el("b", { text: b.board }), b.free ? " free" : ` plays ${b.match}`)) : [el("li", { class: "hint", text: "no board seen yet: type one in a match's board field" })]));
    fill($("matches"), el("tr", {}, el("th", { text: "Match" }), el("th", { text: "Entrants" }), el("th", { text: "State" }), el("th", { text: "Act" })), ...v.matches.map(matchRow));
    fill($("entrants"), ...v.entrants.map((e) => el("li", { data: { entrant: e.name } }, el("span", { text: e.name }), e.status !== "active" ? el("span", { class: "hint", text: ` ${e.status}` }) : el("button", { type: "button", class: "warn", data: { do: "withdraw" }, text: "Withdraw" }))));
    fill($("cards"), ...v.cards.map((c) => el("a", { class: "btn", href: c.href, target: "_blank", text: `${c.stage} round ${c.round}` })));
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
    const entrant = btn.closest("li[data-entrant]");
    if (entrant) return { do: "withdraw", entrant: entrant.dataset.entrant };
    const row = btn.closest("tr[data-match]");
    if (!row) return null;
    const match = row.dataset.match;
    if (kind === "assign") return { do: "assign", match, board: row.querySelector("input.board").value.trim() };
    const numbers = row.querySelector("input.points").value.trim();
    const doc = { do: kind, match, winner: row.querySelector("select.winner").value };
    doc[/\/SO\d+-\d+$/.test(match) ? "shootout" : "points"] = numbers; // a shoot-out's result is its twenties (R-1-B)
    if (kind === "correct") doc.reason = "corrected on the organiser's page";
    return doc;
  }

  document.addEventListener("click", (ev) => {
    const btn = ev.target.closest("button[data-do]");
    if (!btn || btn.disabled) return;
    const doc = clicked(btn);
    if (doc) act(doc);
  });

  const typing = () => {
    const a = document.activeElement;
    return a && (a.tagName === "INPUT" || a.tagName === "SELECT") && a.id !== "key" && a.value !== "";
  };

  async function poll(now) {
    clearTimeout(st.timer);
    try {
      const r = await fetch("/api/tournament/organiser");
      const text = await r.text();
      const res = JSON.parse(text);
      if (!r.ok) {
        st.key = !["no scoring key", "wrong scoring key"].includes(res.refused);
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
