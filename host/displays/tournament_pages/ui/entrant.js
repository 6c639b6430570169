"use strict";
// A player's page during a tournament (their phone): what comes next for them in one sentence ("Your next match:
// board t3 against Ben, now", "You are the champion", "Your tournament is over: 5th"), the match and where it is
// played (the board and its TV), their results so far and their place in the stage. Read every 3 s from
// /api/tournament/entrant/<name>. A name that is not an entrant's (part of one, several alike) shows the entrants it
// may mean, each a link.
//
// Alerts: once the player taps "Alert me" (a browser plays sound only after a tap), the page beeps (Web Audio: three
// tones made here, nothing fetched) and vibrates (navigator.vibrate, where the browser has it) each time their match
// is put on a board; the headline flashes either way. Nothing is sent anywhere.

(() => {
  const { el, fill, T, saidOf } = FB;

  // Every word the page writes, in its language (docs/translating.md); the server's sentences come as `<key>_said`
  // beside their English (views.py `with_said`), said with FB.saidOf.
  const SAY = {
    get alertsOn() {
      return T("Alerts on: this page beeps and vibrates when your match is put on a board. Keep it open.");
    },
    get noSound() {
      return T("This browser cannot play sound: the headline flashes when your match is put on a board.");
    },
    get board() {
      return T("Board");
    },
    get onBoard() {
      return T("On board");
    },
    get afterTheMatch() {
      return T("(after the match there now)");
    },
    get boardsTv() {
      return T("Board's TV");
    },
    get waitingForBoard() {
      return T("Waiting for a board: watch the hall screen");
    },
    score: (a, b) => T("Score: {a} – {b}", { a, b }),
    scoreOver: (a, b) => T("Score: {a} – {b} (over)", { a, b }),
    get nextMatch() {
      return T("Next match");
    },
    against: (who) => T("against {who}", { who }),
    get whichOne() {
      return T("Which one are you?");
    },
    get live() {
      return T("LIVE");
    },
    get notLive() {
      return T("NOT LIVE");
    },
    get place() {
      return T("Place");
    },
    placeOf: (place, of, stage) => T("{place} of {of} in {stage}", { place, of, stage }),
    stillIn: (stage) => T("still in {stage}", { stage }),
    get notInStage() {
      return T("not in the current stage");
    },
    get won() {
      return T("Won");
    },
    get lost() {
      return T("Lost");
    },
    versus: (who) => T("v {who}", { who }),
    get walkover() {
      return T("(walkover)");
    },
    bye: (what) => T("Bye ({what})", { what }),
    get results() {
      return T("Results");
    },
    get noMatchYet() {
      return T("no match played yet");
    },
    refused: (code) => T("refused ({code})", { code }),
    get noAnswer() {
      return T("no answer from the display server: trying again");
    },
  };
  const $ = (id) => document.getElementById(id);
  const EVERY_MS = 3000;
  const name = decodeURIComponent(location.pathname.replace(/^\/entrant\//, ""));
  const st = { view: null, error: null, gone: null, choices: [], alert: undefined, audio: null, alerts: 0 };

  function beep() {
    const ctx = st.audio;
    if (!ctx) return false;
    const t0 = ctx.currentTime + 0.02;
    [880, 1175, 1568].forEach((hz, i) => {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = "sine";
      osc.frequency.value = hz;
      gain.gain.setValueAtTime(0.0001, t0 + i * 0.22);
      gain.gain.exponentialRampToValueAtTime(0.4, t0 + i * 0.22 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + i * 0.22 + 0.2);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + i * 0.22);
      osc.stop(t0 + i * 0.22 + 0.21);
    });
    return true;
  }

  // The match was just put on a board: sound, vibration, and the headline flashes.
  function alertNow() {
    st.alerts += 1;
    document.body.dataset.alerts = String(st.alerts);
    const sounded = beep();
    const shook = typeof navigator.vibrate === "function" ? navigator.vibrate([300, 150, 300, 150, 600]) : false;
    document.body.dataset.alerted = [sounded ? "sound" : "", shook ? "vibration" : ""].filter(Boolean).join(" ") || "screen";
    const h = $("headline");
    h.classList.remove("flash");
    void h.offsetWidth; // (restart the animation)
    h.classList.add("flash");
  }

  $("alerts").addEventListener("click", async () => {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx && !st.audio) st.audio = new Ctx();
    if (st.audio && st.audio.state === "suspended") await st.audio.resume();
    document.body.dataset.alerting = st.audio ? "sound" : "screen";
    $("alerts").hidden = true;
    $("alerting").textContent = st.audio ? SAY.alertsOn : SAY.noSound;
    beep(); // one tone now, so the player knows what to listen for
  });

  function next(v) {
    const n = v.next;
    if (!n) return [];
    const round = n.round_name ? `${saidOf(n, "round_name")} · ` : "";
    const where = n.board
      ? el("p", { class: "where" }, `${n.playing ? SAY.board : SAY.onBoard} `, el("b", { class: "board", text: n.board }), n.playing ? " " : ` ${SAY.afterTheMatch} `, el("a", { class: "btn", href: `/tv/${encodeURIComponent(n.board)}`, text: SAY.boardsTv }))
      : el("p", { class: "where", text: SAY.waitingForBoard });
    const mine = n.live && n.live.mine;
    const live = mine ? el("p", { class: "score", text: n.live.over ? SAY.scoreOver(mine[0], mine[1]) : SAY.score(mine[0], mine[1]) }) : null;
    // "against {who}" around the opponent's name: the sentence is said whole, the name set in bold where it falls
    const [before, after] = SAY.against("\u0000").split("\u0000");
    const against = el("p", { class: "big", data: { match: n.id } }, before, el("b", { class: "opponent", text: n.opponent }), after || null);
    return [el("h2", { text: SAY.nextMatch }), against, el("p", { class: "hint", text: `${round}${n.stage} · ${n.label}` }), where, live];
  }

  function choices() {
    const box = $("choices");
    box.hidden = !st.choices.length;
    if (!st.choices.length) return fill(box);
    fill(box, el("h2", { text: SAY.whichOne }), el("ul", { class: "entrantlinks" }, ...st.choices.map((c) => el("li", { data: { entrant: c } }, el("a", { class: "btn", href: `/entrant/${encodeURIComponent(c)}`, text: c })))));
  }

  function render() {
    document.body.dataset.state = st.gone ? "unknown" : st.error ? "disconnected" : st.view ? "live" : "connecting";
    if (st.view || st.game !== undefined) FB.speak(st.view ? st.view.game : st.game); // Québec: French, unless asked
    $("live").textContent = st.error ? SAY.notLive : SAY.live;
    $("live").className = "pill " + (st.error || st.gone ? "bad" : "ok");
    $("conn").textContent = (st.gone ? FB.sayIt(st.gone) : "") || st.error || "";
    choices();
    const v = st.view;
    $("who").textContent = v && !st.gone ? v.name : name;
    if (!v || st.gone) {
      $("headline").textContent = "";
      fill($("next"));
      fill($("place"));
      fill($("results"));
      return;
    }
    document.body.dataset.next = v.next ? v.next.id : "";
    document.body.dataset.kind = v.kind;
    $("headline").textContent = saidOf(v, "headline");
    $("headline").className = `headline ${v.kind}` + ($("headline").classList.contains("flash") ? " flash" : "");
    fill($("next"), ...next(v));
    const p = v.place;
    fill($("place"), el("h2", { text: SAY.place }), el("p", { class: "big", text: p ? (p.place ? SAY.placeOf(p.place, p.of, p.stage) : SAY.stillIn(p.stage)) : SAY.notInStage }));
    const items = v.results.map((r) => el("li", { class: r.won ? "won" : "lost", data: { match: r.match } }, el("b", { text: r.won ? SAY.won : SAY.lost }), ` ${SAY.versus(r.opponent)}`, r.walkover ? ` ${SAY.walkover}` : r.score ? ` ${r.score}` : "", r.round_name ? ` · ${saidOf(r, "round_name")}` : ""));
    (v.byes_said || v.byes).forEach((b) => items.push(el("li", { class: "won", text: SAY.bye(FB.sayIt(b)) })));
    fill($("results"), el("h2", { text: SAY.results }), items.length ? el("ul", { class: "results" }, ...items) : el("p", { class: "hint", text: SAY.noMatchYet }));
  }

  async function poll() {
    try {
      const r = await fetch(`/api/tournament/entrant/${encodeURIComponent(name)}`);
      const res = await r.json();
      st.error = null;
      if (r.ok) {
        if (res.name !== name) history.replaceState(null, "", `/entrant/${encodeURIComponent(res.name)}`);
        const first = st.alert === undefined;
        if (!first && res.alert && res.alert !== st.alert) alertNow();
        st.alert = res.alert;
        st.view = res;
        st.gone = null;
        st.choices = [];
      } else {
        st.gone = res.error_said || res.error || SAY.refused(r.status);
        st.game = res.game || null;
        st.choices = res.choices || [];
      }
    } catch (err) {
      st.error = SAY.noAnswer;
    }
    render();
    document.body.dataset.polls = String(Number(document.body.dataset.polls || "0") + 1);
    setTimeout(poll, EVERY_MS);
  }

  FB.ready.then(render); // once the page knows its language
  render();
  poll();
})();
