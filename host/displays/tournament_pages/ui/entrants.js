"use strict";
// The list of entrants, for a player's phone (the hall screen's QR code leads here): every entrant with their club,
// each a link to their own page, and a search box that ignores case and accents and takes part of a name ("zoe"
// finds Zoé Lévesque, "oneil" Marie-Claire O'Neil). Read once, and again every 30 s (late registrations).

(() => {
  const { el, fill, T } = FB;

  // Every word the page writes, in its language (docs/translating.md).
  const SAY = {
    get live() {
      return T("LIVE");
    },
    get notLive() {
      return T("NOT LIVE");
    },
    title: (name) => T("Entrants · {name}", { name }),
    shown: (n, of) => T("{n} of {of} entrants match", { n, of }),
    entrants: (n) => (Number(n) === 1 ? T("1 entrant") : T("{n} entrants", { n })),
    get nobody() {
      return T("nobody matches: try fewer letters");
    },
    status: (status) => (status === "withdrawn" ? T("withdrawn") : status === "disqualified" ? T("disqualified") : status),
    get noAnswer() {
      return T("no answer from the display server: trying again");
    },
  };
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 30000;
  const st = { view: null, error: null };

  // What is typed, as the server folds the names: lower case, no accents, words apart.
  const fold = (text) =>
    text
      .normalize("NFKD")
      .replace(/\p{M}/gu, "")
      .toLowerCase()
      .replace(/ß/g, "ss");
  const words = (text) => fold(text).split(/[\s\-'’.&,]+/).filter(Boolean);

  // Each name written without its spaces, hyphens and apostrophes, from each of its words on ("oneil" is in
  // Marie-Claire O'Neil).
  const runs = (names) => names.flatMap((n) => words(n).map((_, i, ws) => ws.slice(i).join("")));

  // An entrant matches when each word typed starts a word of their name, a player's or their club, or a run of them.
  function matches(entrant, typed) {
    const want = words(typed);
    if (!want.length) return true;
    const theirs = [...entrant.key.split(/[\s\-'’.&,]+/).filter(Boolean), ...runs([entrant.name, ...entrant.players])];
    return want.every((w) => theirs.some((x) => x.startsWith(w)));
  }

  function item(e) {
    const extra = [e.players.length ? e.players.join(" & ") : "", e.club || "", e.status !== "active" ? SAY.status(e.status) : ""].filter(Boolean).join(" · ");
    return el(
      "li",
      { data: { entrant: e.name }, class: e.status !== "active" ? "out" : null },
      el("a", { class: "btn", href: `/entrant/${encodeURIComponent(e.name)}`, text: e.name }),
      extra ? el("span", { class: "hint", text: ` ${extra}` }) : null
    );
  }

  function render() {
    document.body.dataset.state = st.error ? "disconnected" : st.view ? "live" : "connecting";
    if (st.view) FB.speak(st.view.game); // Québec: French, unless another language was asked for
    $("live").textContent = st.error ? SAY.notLive : SAY.live;
    $("live").className = "pill " + (st.error ? "bad" : "ok");
    $("conn").textContent = st.error || "";
    const v = st.view;
    if (!v) return;
    $("name").textContent = SAY.title(v.name);
    const typed = $("q").value;
    const shown = v.entrants.filter((e) => matches(e, typed));
    document.body.dataset.shown = String(shown.length);
    $("count").textContent = typed.trim() ? SAY.shown(shown.length, v.entrants.length) : SAY.entrants(v.entrants.length);
    fill($("list"), ...(shown.length ? shown.map(item) : [el("li", { class: "hint", text: SAY.nobody })]));
  }

  async function load() {
    try {
      const r = await fetch("/api/tournament/entrants");
      if (!r.ok) throw new Error(String(r.status));
      st.view = await r.json();
      st.error = null;
    } catch (err) {
      st.error = SAY.noAnswer;
    }
    render();
    setTimeout(load, st.error ? 3000 : EVERY_MS);
  }

  $("q").addEventListener("input", render);
  $("find").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const first = document.querySelector("#list a");
    if (first && Number(document.body.dataset.shown) === 1) location.href = first.href;
  });
  FB.ready.then(render); // once the page knows its language
  render();
  load();
})();
