"use strict";
// A player's page during a tournament (their phone): the next match and where it is played (the board and its TV),
// their results so far and their place in the stage. Read every 5 s from /api/tournament/entrant/<name>.

(() => {
  const { el, fill } = FB;
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 5000;
  const name = decodeURIComponent(location.pathname.replace(/^\/entrant\//, ""));
  const st = { view: null, error: null, gone: null };

  function next(v) {
    const n = v.next;
    if (v.status !== "active") return [el("h2", { text: "Next match" }), el("p", { class: "big", text: `${v.status}${v.reason ? `: ${v.reason}` : ""}` })];
    if (!n) return [el("h2", { text: "Next match" }), el("p", { class: "big", text: "none yet: wait for the next round or the bracket" })];
    const where = n.board
      ? el("p", { class: "where" }, n.playing ? "Now on board " : "On board ", el("b", { class: "board", text: n.board }), n.playing ? " " : " (after the match there now) ", el("a", { class: "btn", href: `/tv/${encodeURIComponent(n.board)}`, text: "Board's TV" }))
      : el("p", { class: "where", text: "Waiting for a board: watch the hall screen" });
    const live = n.live && n.live.mine ? el("p", { class: "score", text: `Score: ${n.live.mine[0]} – ${n.live.mine[1]}${n.live.over ? " (over)" : ""}` }) : null;
    return [el("h2", { text: "Next match" }), el("p", { class: "big", data: { match: n.id } }, "v ", el("b", { class: "opponent", text: n.opponent })), el("p", { class: "hint", text: `${n.stage} · ${n.label}` }), where, live];
  }

  function render() {
    document.body.dataset.state = st.gone ? "unknown" : st.error ? "disconnected" : st.view ? "live" : "connecting";
    $("live").textContent = st.error ? "NOT LIVE" : "LIVE";
    $("live").className = "pill " + (st.error || st.gone ? "bad" : "ok");
    $("conn").textContent = st.gone || st.error || "";
    const v = st.view;
    $("who").textContent = name;
    if (!v || st.gone) {
      fill($("next"));
      fill($("place"));
      fill($("results"));
      return;
    }
    document.body.dataset.next = v.next ? v.next.id : "";
    fill($("next"), ...next(v));
    const p = v.place;
    fill($("place"), el("h2", { text: "Place" }), el("p", { class: "big", text: p ? (p.place ? `${p.place} of ${p.of} in ${p.stage}` : `still in ${p.stage}`) : "not in the current stage" }));
    const items = v.results.map((r) => el("li", { class: r.won ? "won" : "lost", data: { match: r.match } }, el("b", { text: r.won ? "Won" : "Lost" }), ` v ${r.opponent}`, r.walkover ? " (walkover)" : r.score ? ` ${r.score}` : ""));
    for (const b of v.byes) items.push(el("li", { class: "won", text: `Bye (${b})` }));
    fill($("results"), el("h2", { text: "Results" }), items.length ? el("ul", { class: "results" }, ...items) : el("p", { class: "hint", text: "no match played yet" }));
  }

  async function poll() {
    try {
      const r = await fetch(`/api/tournament/entrant/${encodeURIComponent(name)}`);
      const res = await r.json();
      st.error = null;
      if (r.ok) {
        st.view = res;
        st.gone = null;
      } else {
        st.gone = res.error || `refused (${r.status})`;
      }
    } catch (err) {
      st.error = "no answer from the display server: trying again";
    }
    render();
    setTimeout(poll, EVERY_MS);
  }

  render();
  poll();
})();
