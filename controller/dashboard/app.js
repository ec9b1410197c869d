// The referee dashboard: follows a match over the WebSocket, draws the camera overlay,
// and sends the referee's decisions with the venue's bearer token. No libraries, no CDN.
"use strict";

const S = {
  lang: localStorage.getItem("basra.lang") || ((navigator.language || "").startsWith("ar") ? "ar" : "en"),
  token: localStorage.getItem("basra.token") || "",
  matchId: new URLSearchParams(location.search).get("match"),
  follow: !new URLSearchParams(location.search).get("match"),
  matches: [],
  state: null,
  ws: null,
  wsFor: null,
  frameSeq: -1,
};

const $ = (id) => document.getElementById(id);
const t = (key) => (STRINGS[S.lang] && STRINGS[S.lang][key]) || STRINGS.en[key] || key;
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };

function el(tag, attrs = {}, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) node.append(kid);
  return node;
}

function card(code) {
  if (!code) return el("span", { class: "c unknown", text: "?" });
  const rank = code[0] === "T" ? "10" : code[0];
  const suit = code[1];
  const red = suit === "H" || suit === "D";
  return el("span", { class: "c" + (red ? " red" : ""), dir: "ltr", "data-card": code,
                      text: rank + (SUITS[suit] || suit) });
}

function cards(list) {
  const span = el("span", { class: "cards" });
  if (!list || !list.length) span.append(el("span", { class: "muted", text: t("nothing") }));
  for (const c of list || []) span.append(card(c));
  return span;
}

function seatName(seat) {
  const s = S.state && S.state.summary;
  if (!s || seat == null) return "–";
  return s.seat_names[seat] || `${t("seat")} ${seat}`;
}

function sideOfSeat(seat) {
  const s = S.state.summary;
  return s.players === 4 ? seat % 2 : seat;
}

// ---- language ------------------------------------------------------------------------------

function applyLang() {
  document.documentElement.lang = S.lang;
  document.documentElement.dir = S.lang === "ar" ? "rtl" : "ltr";
  document.title = t("title");
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  const btn = $("lang");
  btn.textContent = S.lang === "ar" ? "English" : "عربي";
  btn.lang = S.lang === "ar" ? "en" : "ar";
  $("f-names").placeholder = S.lang === "ar" ? "رامي، هدى" : "Rami, Huda";
  setConn(S.ws && S.ws.readyState === 1);
  render();
  renderMatches();
}

// ---- talking to the API --------------------------------------------------------------------

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (S.token) headers.Authorization = "Bearer " + S.token;
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    if (res.status === 401) $("token-dialog").showModal();
    throw new Error(data.error || res.statusText);
  }
  return data;
}

function say(text, bad = false) {
  const msg = $("action-msg");
  msg.textContent = text;
  msg.className = "msg" + (bad ? " bad" : " ok");
}

async function decide(path, body, okWord) {
  if (!S.token) { $("token-dialog").showModal(); say(t("need_token"), true); return; }
  try {
    const out = await api("POST", `/api/matches/${S.matchId}/${path}`, body);
    S.state = out.state;
    render();
    say(`${t("done")} ${t(okWord)}`);
  } catch (err) {
    say(err.message, true);
  }
}

function setConn(on) {
  const c = $("conn");
  c.textContent = on ? t("online") : t("offline");
  c.className = "conn " + (on ? "on" : "off");
}

function connect(matchId) {
  if (S.ws && S.wsFor === matchId) return;
  if (S.ws) { S.ws.onclose = null; S.ws.close(); }
  S.wsFor = matchId;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/api/matches/${encodeURIComponent(matchId)}/ws`);
  S.ws = ws;
  ws.onopen = () => setConn(true);
  ws.onmessage = (msg) => {
    const data = JSON.parse(msg.data);
    if (data.state) { S.state = data.state; render(); }
  };
  ws.onclose = () => {
    setConn(false);
    if (S.wsFor === matchId) { S.ws = null; S.wsFor = null; setTimeout(() => connect(S.matchId), 1000); }
  };
}

function select(matchId, follow) {
  if (follow !== undefined) S.follow = follow;
  if (S.matchId === matchId && S.ws) return;
  S.matchId = matchId;
  S.state = null;
  S.frameSeq = -1;
  const url = new URL(location.href);
  url.searchParams.set("match", matchId);
  history.replaceState(null, "", url.pathname + url.search);
  render();
  renderMatches();
  connect(matchId);
}

async function loadMatches() {
  try {
    S.matches = await api("GET", "/api/matches");
  } catch (err) { return; }
  if (S.follow) {
    const live = S.matches.find((m) => m.status === "live") || S.matches[0];
    if (live && live.id !== S.matchId) select(live.id);
  } else if (S.matchId && !S.ws) {
    connect(S.matchId);
  }
  renderMatches();
}

// ---- rendering -----------------------------------------------------------------------------

function verdictWords(item) {
  const words = [];
  if (item.verdict === "foul") words.push(`${t("foul")}: ${t(item.foul || "foul")}`);
  else words.push(t(item.verdict || "unreadable"));
  return words.join(" ");
}

function renderVerdict(item) {
  const box = $("verdict");
  box.replaceChildren();
  if (!item) { box.textContent = t("none_yet"); box.className = "muted"; return; }
  box.className = "verdict " + (item.verdict === "foul" ? "is-foul" : "");
  box.append(
    el("div", { class: "v-line" },
      el("b", { text: seatName(item.seat) }), ` ${t("played")} `, card(item.card), " — ",
      el("span", { class: "v-kind", "data-verdict": item.verdict || "", text: verdictWords(item) }),
      item.basra ? el("span", { class: "badge basra", text: `${t("basra")} +${item.basra_points}` }) : null),
    el("div", {}, `${t("takes")}: `, cards(item.takes)),
  );
  const why = item.verdict === "foul" ? `why_${item.foul}`
    : item.verdict === "unreadable" ? "why_unreadable"
    : item.basra ? "why_basra"
    : item.legal && item.legal.length > 1 ? "why_choice" : null;
  if (why && STRINGS.en[why]) box.append(el("div", { class: "why", text: t(why) }));
  if (item.verdict === "foul" || (item.legal && item.legal.length > 1)) {
    const legal = el("div", { class: "legal" }, el("span", { text: t("legal") + ": " }));
    if (!item.legal || !item.legal.length) legal.append(el("span", { text: t("no_legal") }));
    for (const set of item.legal || []) legal.append(el("span", { class: "alt" }, cards(set)));
    box.append(legal);
  }
  if (item.status && item.status !== "ok") box.append(el("div", { class: "badge", text: t("st_" + item.status) }));
  const marks = doubt(item);
  if (marks.length) box.append(el("div", {}, ...marks));
}

function renderPending(list) {
  const ul = $("pending");
  ul.replaceChildren();
  $("no-pending").hidden = list.length > 0;
  for (const p of list) {
    const li = el("li", { "data-event": p.id, "data-kind": p.kind || "" },
      el("div", {}, el("b", { text: t(p.kind || p.type) }), " · ",
        p.round ? el("span", { class: "muted", text: `${t("round")} ${p.round} · ${t("play")} ${p.play ?? "–"} · ` }) : null,
        p.seat != null ? seatName(p.seat) : "", " ", p.card ? card(p.card) : null));
    const buttons = el("div", { class: "actions" });
    if (p.type === "foul") {
      if (STRINGS.en[`why_${p.kind}`]) li.append(el("div", { class: "why", text: t(`why_${p.kind}`) }));
      li.append(el("div", { class: "legal" }, `${t("legal")}: `,
        ...(p.legal.length ? p.legal.map((s) => el("span", { class: "alt" }, cards(s)))
                           : [el("span", { text: t("no_legal") })])));
      if (p.kind === "unreadable") {
        buttons.append(el("button", { type: "button", class: "confirm", text: t("confirm"),
                                      onclick: () => decide("confirm", { target: p.id }, "confirmed") }));
      } else {
        buttons.append(
          el("button", { type: "button", class: "accept", text: t("accept"),
                         onclick: () => decide(`fouls/${p.id}/accept`, undefined, "accepted") }),
          el("button", { type: "button", class: "reject warn", text: t("reject"),
                         onclick: () => decide(`fouls/${p.id}/reject`, undefined, "rejected") }));
      }
      // A misread card can look like a foul: the referee names the card actually played.
      const input = el("input", { class: "card-input", placeholder: t("card_placeholder"),
                                  dir: "ltr", size: "6", "aria-label": t("card_placeholder") });
      buttons.append(input,
        el("button", { type: "button", class: "correct", text: t("correct"),
                       onclick: () => decide("correct", { target: p.id, card: input.value.trim() }, "corrected") }));
    } else {
      if (p.text) li.append(el("div", { class: "muted", text: p.text }));
      buttons.append(el("button", { type: "button", class: "confirm", text: t("confirm"),
                                    onclick: () => decide("confirm", { target: p.id }, "confirmed") }));
    }
    li.append(buttons);
    ul.append(li);
  }
}

// A legal verdict on a doubtful read (a faint card named by what it took, a runner-up of the
// read, two cards seen at once): marked until the referee confirms or corrects it.
function doubt(h) {
  if (!h.doubtful || h.decided_by != null || h.status !== "ok") return [];
  const read = h.read_as ? [` · ${t("read_as")} `, card(h.read_as)] : [];
  return [
    el("span", { class: "badge doubt" }, t("doubtful"), ...read),
    el("button", { type: "button", class: "confirm small", text: t("confirm"),
                   onclick: () => decide("confirm", { target: h.id }, "confirmed") }),
  ];
}

function renderHistory(list) {
  const ol = $("history");
  ol.replaceChildren();
  for (const h of [...list].reverse()) {
    const li = el("li", { "data-event": h.id, "data-status": h.status, class: h.status === "undone" ? "struck" : "" },
      el("span", { class: "muted num", dir: "ltr", text: h.play ? `${h.round}·${h.play}` : `${h.round}·–` }), " ",
      el("b", { text: seatName(h.seat) }), " ", card(h.card), " ",
      el("span", { class: h.verdict === "foul" ? "bad" : "", text: verdictWords(h) }), " ",
      h.takes && h.takes.length ? cards(h.takes) : null,
      h.basra ? el("span", { class: "badge basra", text: t("basra") }) : null,
      h.status && h.status !== "ok" ? el("span", { class: "badge", text: t("st_" + h.status) }) : null,
      ...doubt(h));
    ol.append(li);
  }
}

function renderScores(s) {
  const box = $("sides");
  box.replaceChildren();
  const turnSide = s.to_play == null ? null : sideOfSeat(s.to_play);
  s.sides.forEach((names, i) => {
    box.append(el("div", { class: "side" + (turnSide === i ? " turn" : "") + (s.winner === i ? " won" : ""),
                           "data-side": i },
      el("div", { class: "names", text: names.join(" & ") }),
      el("div", { class: "total", "data-total": i, dir: "ltr", text: String(s.totals[i] ?? 0) }),
      s.this_round ? el("div", { class: "this-round muted", "data-this-round": i },
        `${t("this_round")}: ${s.this_round.cards[i]} ${t("cards")}`,
        s.this_round.basra_points[i] ? el("span", { class: "badge basra", text: `${t("basra")} +${s.this_round.basra_points[i]}` }) : null) : null));
  });
}

function render() {
  const st = S.state;
  const s = st && st.summary;
  if (!s) {
    $("round").textContent = "–"; $("to-play").textContent = "–"; $("dealer").textContent = "–";
    $("sides").replaceChildren(); renderVerdict(null); renderPending([]); renderHistory([]);
    return;
  }
  $("round").textContent = String(s.round ?? "–");
  $("match-name").textContent = `${t("v_" + s.variant)} · ${st.match.table_id}`;
  $("to-play").textContent = s.finished ? "–" : seatName(s.to_play);
  $("dealer").textContent = seatName(s.dealer);
  const fin = $("finished");
  fin.classList.toggle("hidden", !s.finished);
  fin.textContent = s.finished
    ? `${t("finished")} · ${s.winner == null ? t("draw") : t("winner") + ": " + s.sides[s.winner].join(" & ")}`
    : "";
  renderScores(s);
  $("rounds").textContent = s.rounds.length
    ? s.rounds.map((r, i) => `${t("round")} ${i + 1}: ${r.score.join(" – ")}`).join(" · ")
    : "";
  $("floor").replaceChildren(cards(s.floor));
  renderVerdict(s.last_verdict);
  renderPending(s.pending);
  renderHistory(s.history);
  $("undo").disabled = s.phase !== "playing" || !s.history.some((h) => h.status !== "undone" && h.round === s.round);
  $("end-round").disabled = s.phase !== "playing";
}

function renderMatches() {
  const ul = $("matches");
  ul.replaceChildren();
  for (const m of S.matches.slice(0, 20)) {
    const when = new Date(m.created * 1000).toLocaleString(S.lang === "ar" ? "ar" : "en-GB",
                                                          { dateStyle: "short", timeStyle: "short" });
    ul.append(el("li", { class: m.id === S.matchId ? "current" : "" },
      el("a", { href: `?match=${encodeURIComponent(m.id)}`, "data-match": m.id,
                onclick: (e) => { e.preventDefault(); select(m.id, false); } },
        `${m.seat_names.join(" – ")}`),
      el("span", { class: "muted", text: ` ${t("v_" + m.variant)} · ${m.table_id} · ${when} · ${t(m.status)}` })));
  }
}

// ---- camera --------------------------------------------------------------------------------

async function pollCamera() {
  const tableId = S.state && S.state.match.table_id;
  if (!tableId) return;
  let view;
  try {
    const res = await fetch(`/api/tables/${encodeURIComponent(tableId)}/view`);
    if (!res.ok) return;
    view = await res.json();
  } catch (err) { return; }
  if (view.seq === S.frameSeq) return;
  S.frameSeq = view.seq;
  const img = $("frame");
  img.src = `/api/tables/${encodeURIComponent(tableId)}/frame.jpg?seq=${view.seq}`;
  img.hidden = false;
  $("no-camera").hidden = true;
  const svg = $("overlay");
  svg.setAttribute("viewBox", `0 0 ${view.width} ${view.height}`);
  const ns = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  const poly = (pts, cls) => {
    const p = document.createElementNS(ns, "polygon");
    p.setAttribute("points", pts.map((q) => q.join(",")).join(" "));
    p.setAttribute("class", cls);
    return p;
  };
  if (view.floor.length) svg.append(poly(view.floor, "floor-region"));
  for (const c of view.cards) {
    if (!c.quad || c.quad.length < 3) continue;
    const g = document.createElementNS(ns, "g");
    g.setAttribute("class", "det" + (c.zone === "floor" ? " on-floor" : ""));
    g.setAttribute("data-card", c.code);
    g.append(poly(c.quad, "outline"));
    const label = document.createElementNS(ns, "text");
    const top = c.quad.reduce((a, b) => (b[1] < a[1] ? b : a));
    label.setAttribute("x", top[0]);
    label.setAttribute("y", Math.max(14, top[1] - 4));
    label.textContent = `${c.code} ${Math.round((c.confidence || 0) * 100)}%`;
    g.append(label);
    svg.append(g);
  }
}

// ---- wiring --------------------------------------------------------------------------------

function readTokenFromUrl() {
  const m = location.hash.match(/token=([^&]+)/);
  if (m) {
    S.token = decodeURIComponent(m[1]);
    localStorage.setItem("basra.token", S.token);
    history.replaceState(null, "", location.pathname + location.search);
  }
}

function wire() {
  $("lang").addEventListener("click", () => {
    S.lang = S.lang === "ar" ? "en" : "ar";
    localStorage.setItem("basra.lang", S.lang);
    say("");
    applyLang();
  });
  $("token-btn").addEventListener("click", () => { $("token-input").value = S.token; $("token-dialog").showModal(); });
  $("token-form").addEventListener("submit", () => {
    S.token = $("token-input").value.trim();
    localStorage.setItem("basra.token", S.token);
  });
  $("undo").addEventListener("click", () => decide("undo", undefined, "undone"));
  // R7: a round whose plays the camera partly missed and that no next deal will end.
  $("end-round").addEventListener("click", () => {
    if (window.confirm(t("end_round_ask"))) decide("end-round", undefined, "round_ended");
  });
  $("match-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!S.token) { $("token-dialog").showModal(); say(t("need_token"), true); return; }
    const names = $("f-names").value.split(/[,،]/).map((x) => x.trim()).filter(Boolean);
    const body = {
      variant: $("f-variant").value,
      players: Number($("f-players").value),
      dealer: Number($("f-dealer").value || 0),
      table_id: $("f-table").value.trim() || "table-1",
    };
    if (names.length) body.seat_names = names;
    try {
      const m = await api("POST", "/api/matches", body);
      say(t("match_started"));
      $("new-match").open = false;
      S.matches.unshift(m);
      select(m.id, true);
    } catch (err) {
      say(err.message, true);
    }
  });
}

async function pollHealth() {
  try {
    const h = await api("GET", "/api/health");
    const board = h.scoreboard && h.scoreboard.display;
    $("board").hidden = !board;
    if (board) {
      $("board").textContent = `[${board}]`;
      $("board").title = `${t("scoreboard")}: ${h.scoreboard.link || ""}`;
    }
  } catch (err) { /* the connection badge already says so */ }
}

readTokenFromUrl();
wire();
applyLang();
loadMatches();
setInterval(loadMatches, 2000);
setInterval(pollCamera, 300);
pollHealth();
setInterval(pollHealth, 2000);
