'use strict';
// The OBS overlay: the scoreboard, the pile tops and the latest calls from
// /events, over a transparent page. Query string: panels=scores,piles,calls
// (any of them; default all), corner=tl|tr|bl|br (default tr), scale=0.5..3
// (default 1), calls=rulings (only fouls, corrections and scores, not every
// legal play). Bad values are ignored.
(() => {
  const { el, renderPiles, renderFeed, phaseName, backColour, renderTilesScores, tilesBanner } = Ligretto;
  const $ = (id) => document.getElementById(id);
  const panelNames = ['scores', 'piles', 'calls'];
  const calls = 5; // feed items shown

  function options(q) {
    let panels = (q.get('panels') || '').split(',').map((s) => s.trim().toLowerCase()).filter((s) => panelNames.includes(s));
    if (panels.length === 0) panels = panelNames;
    const corner = ['tl', 'tr', 'bl', 'br'].includes(q.get('corner')) ? q.get('corner') : 'tr';
    const raw = (q.get('scale') || '').trim();
    let scale = raw === '' ? 1 : Number(raw);
    scale = Number.isFinite(scale) ? Math.min(3, Math.max(0.5, scale)) : 1;
    const rulings = q.get('calls') === 'rulings';
    return { panels, corner, scale, rulings };
  }

  const opt = options(new URLSearchParams(location.search));
  window.ligrettoOverlay = opt; // for tests
  const stack = $('stack');
  stack.className = `stack corner-${opt.corner}`;
  stack.style.setProperty('--scale', String(opt.scale));

  const { signed } = Ligretto;

  function renderScores(st) {
    const m = st.match || {};
    $('matchline').textContent = st.round ? `Round ${st.round} · ${phaseName(st.phase)}` : phaseName(st.phase);
    const banner = $('banner');
    banner.hidden = false;
    if (m.over) banner.textContent = m.winner ? `${m.winner} wins the match` : 'The match is over';
    else if (st.phase === 'counting') banner.textContent = st.deadlock ? 'Deadlock: counting cards' : `Ligretto stop${st.stopped_by ? ` by ${st.stopped_by}` : ''}!`;
    else banner.hidden = true;

    const body = $('scores');
    body.replaceChildren();
    const players = (st.players || []).slice().sort((a, b) => b.total - a.total);
    if (players.length === 0) {
      body.append(el('tr', {}, el('td', { colspan: '3', class: 'empty', text: 'Waiting for a match' })));
      return;
    }
    for (const p of players) {
      const live = p.live !== undefined && p.live !== null;
      const swatch = el('span', { class: 'swatch' });
      swatch.style.background = backColour(p.back);
      body.append(el('tr', { class: `${m.winner === p.name ? 'winner' : ''}${m.leader === p.name ? ' leader' : ''}` },
        el('td', {}, el('div', { class: 'who' }, swatch, el('span', { class: 'name', text: p.name }))),
        el('td', { class: `num round ${live ? 'live' : 'last'}`, text: signed(live ? p.live : p.last) }),
        el('td', { class: 'num total', text: String(p.total) })));
    }
  }

  // The tile game (rulebook 002): its own scoreboard; it has no piles.
  function renderTiles(st) {
    $('matchline').textContent = st.round ? `Round ${st.round} · ${phaseName(st.phase)}` : phaseName(st.phase);
    const banner = $('banner');
    banner.textContent = tilesBanner(st);
    banner.hidden = banner.textContent === '';
    renderTilesScores($('tiles-scores'), st, true);
  }

  function render(st) {
    const tiles = st.game === 'tiles';
    for (const name of panelNames) $(`panel-${name}`).hidden = !opt.panels.includes(name) || (tiles && name === 'piles');
    $('classic-table').hidden = tiles;
    $('tiles-table').hidden = !tiles;
    if (opt.panels.includes('scores')) (tiles ? renderTiles : renderScores)(st);
    if (opt.panels.includes('piles')) renderPiles($('piles'), st.piles, true, st.unsure);
    if (opt.panels.includes('calls')) {
      const plain = ['ok', 'info', 'inferred'];
      const feed = opt.rulings ? (st.feed || []).filter((f) => !plain.includes(f.status)) : st.feed;
      renderFeed($('feed'), feed, calls);
    }
  }

  // EventSource reconnects by itself when the stream drops, but gives up
  // on an HTTP error (503 when the server is full): then a new one, later.
  let es = null;
  let attempt = 0;
  let retry = null;
  const reconnecting = (on) => { $('reconnecting').hidden = !on; };

  function connect() {
    clearTimeout(retry);
    const src = new EventSource('/events');
    es = src;
    src.onopen = () => { attempt = 0; reconnecting(false); };
    src.onmessage = (e) => {
      let m;
      try { m = JSON.parse(e.data); } catch { return; }
      if (m && m.type === 'state' && m.state) render(m.state);
    };
    src.onerror = () => {
      if (src !== es) return;
      reconnecting(true);
      if (src.readyState !== EventSource.CLOSED) return;
      const delay = Math.min(30, 2 ** attempt) * (0.8 + 0.4 * Math.random());
      attempt = Math.min(attempt + 1, 5);
      retry = setTimeout(connect, delay * 1000);
    };
  }

  window.addEventListener('pagehide', () => { if (es) es.close(); });
  connect();
})();
