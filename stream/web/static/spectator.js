'use strict';
// The spectator page. The video and the game state come either from this
// server (WHEP and the "state" DataChannel: the default) or from the LiveKit
// room the table is published to (?via=room, room.js: the room's video track
// and its data messages on the topic "state"); the page draws both the same
// way. Without ?via, a page that this server turns away as full (503)
// watches from the room when there is one; ?via=whep never does.
(() => {
  const { el, renderPiles, renderFeed, setMatchLine, backColour, renderTilesScores, tilesBanner } = Ligretto;
  const $ = (id) => document.getElementById(id);
  const video = $('video');
  const via = new URLSearchParams(location.search).get('via');
  let mode = null;    // 'whep' or 'room'
  let viewer = null;  // the current WHEPViewer or LigrettoRoom.Viewer
  let retry = () => {};

  $('whep-url').textContent = new URL('/whep', location.href).toString();

  function setStatus(kind, text) {
    const s = $('status');
    s.className = `pill ${kind}`;
    s.textContent = text;
  }

  function overlay(show, title, text, spinning, retryButton) {
    $('overlay').classList.toggle('hidden', !show);
    if (!show) return;
    $('overlay-title').textContent = title;
    $('overlay-text').textContent = text || '';
    $('spinner').hidden = !spinning;
    $('retry').hidden = !retryButton;
  }

  $('retry').addEventListener('click', () => retry());

  // Picture watch: frames decoded tell that the picture moves. Both paths
  // report them; picture() is called every second while one is connected.
  let lastFrames = 0;
  let stalledSince = 0;
  function resetPicture() { lastFrames = 0; stalledSince = Date.now(); }
  async function picture(v) {
    const n = await v.framesDecoded().catch(() => 0);
    if (v !== viewer || (mode === 'room' && !v.live())) return 0;
    if (n > lastFrames) {
      lastFrames = n;
      stalledSince = Date.now();
      overlay(false);
      setStatus('live', 'Live');
      return 0;
    }
    const stalled = Date.now() - stalledSince;
    if (stalled > 4000) { setStatus('wait', 'No picture'); overlay(true, 'Waiting for the picture…', 'The table camera sends nothing at the moment.', true, false); }
    return stalled;
  }

  // ---- From this server: WHEP ----

  let attempt = 0;
  let retryTimer = null;
  let countdown = null;
  let whepWatchdog = null;

  function watchWHEP() {
    mode = 'whep';
    retry = () => { attempt = 0; connect(); };
    // The watchdog notices a picture that stopped: no new decoded frame
    // for 4 s shows it, 12 s reconnects.
    whepWatchdog = setInterval(async () => {
      if (!viewer || !viewer.pc || viewer.pc.connectionState !== 'connected') return;
      if (await picture(viewer) > 12000) down('The picture stopped.');
    }, 1000);
    connect();
  }

  function connect() {
    clearTimeout(retryTimer);
    clearInterval(countdown);
    if (viewer) viewer.close();
    setStatus('wait', 'Connecting…');
    overlay(true, 'Connecting to the table…', '', true, false);
    const v = new WHEPViewer('/whep', {
      onTrack: (stream) => { if (video.srcObject !== stream) video.srcObject = stream; video.play().catch(() => {}); },
      onState: render,
      onStateClosed: () => { if (v === viewer) down('The connection to the stream was lost.'); },
      onConnection: (st) => {
        if (v !== viewer) return;
        if (st === 'connected') {
          attempt = 0;
          setStatus('live', 'Live');
          overlay(true, 'Waiting for the picture…', '', true, false);
        } else if (st === 'failed' || st === 'closed') {
          down('The connection to the stream was lost.');
        } else if (st === 'disconnected') {
          setStatus('wait', 'Reconnecting…');
        }
      },
    });
    viewer = v;
    resetPicture();
    v.start().catch((err) => {
      if (v !== viewer) return;
      if (err.status === 503 && via !== 'whep') fullTryRoom(v, err.message || 'The stream is full.');
      else if (err.status === 503) down(err.message || 'The stream is full.');
      else down(err.status ? `The server said: ${err.message}` : 'The server cannot be reached.');
    });
  }

  // down shows that the stream is down and schedules a retry with
  // exponential backoff (1 s, 2 s, 4 s … 30 s, with jitter).
  function down(reason) {
    if (viewer) viewer.close();
    viewer = null;
    const delay = Math.min(30, 2 ** attempt) * (0.8 + 0.4 * Math.random());
    attempt = Math.min(attempt + 1, 6);
    let left = Math.ceil(delay);
    setStatus('down', 'Stream down');
    const tick = () => overlay(true, 'The stream is down', `${reason} Retrying in ${left}\u00a0s…`, false, true);
    tick();
    clearInterval(countdown);
    countdown = setInterval(() => { left = Math.max(0, left - 1); tick(); }, 1000);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, delay * 1000);
  }

  // fullTryRoom: this server is full; watch from its room if it has one.
  function fullTryRoom(v, reason) {
    LigrettoRoom.fetchJoin().then((join) => {
      if (v !== viewer) return;
      v.close();
      stopWHEP();
      watchRoom(join);
    }, () => { if (v === viewer) down(reason); });
  }

  function stopWHEP() {
    clearTimeout(retryTimer);
    clearInterval(countdown);
    clearInterval(whepWatchdog);
  }

  // ---- From the LiveKit room ----

  function watchRoom(join) {
    mode = 'room';
    const v = new LigrettoRoom.Viewer(video, {
      onState: render,
      onJoin: (j) => {
        $('room-name').textContent = j.room;
        $('via-room').hidden = false;
      },
      onView: (view, d) => {
        if (v !== viewer) return;
        switch (view) {
          case 'connecting':
            setStatus('wait', 'Connecting…');
            overlay(true, 'Connecting to the room…', '', true, false);
            break;
          case 'live':
            resetPicture();
            setStatus('live', 'Live');
            overlay(true, 'Waiting for the picture…', '', true, false);
            break;
          case 'away':
            setStatus('wait', 'Referee away');
            overlay(true, 'The referee\u2019s stream is away', 'The picture comes back by itself when the referee publishes again.', true, false);
            break;
          case 'reconnecting':
            setStatus('wait', 'Reconnecting…');
            overlay(true, 'Reconnecting to the room…', d.in ? `${d.reason} Joining again in ${d.in}\u00a0s…` : '', true, !!d.in);
            break;
          case 'unavailable':
            setStatus('down', 'No room');
            overlay(true, 'No LiveKit room', 'This table is not published to a LiveKit room. Open the page without ?via=room to watch from the referee\u2019s server.', false, true);
            break;
        }
      },
    });
    viewer = v;
    retry = () => v.start();
    v.start(join);
    // While the referee's track plays: is the picture moving?
    setInterval(() => { if (v.live()) picture(v); }, 1000);
  }

  // The tile game (rulebook 002): its own scoreboard, no centre piles.
  function renderTiles(st) {
    setMatchLine(st);
    $('rule-deadlock').textContent = 'Tile game (rulebook 002)';
    renderTilesScores($('tiles-scores'), st, false);
    renderFeed($('feed'), st.feed, 30);
    const banner = $('banner');
    banner.textContent = tilesBanner(st);
    banner.hidden = banner.textContent === '';
  }

  function render(st) {
    const tiles = st.game === 'tiles';
    $('classic-table').hidden = tiles;
    $('tiles-table').hidden = !tiles;
    document.querySelector('.piles-panel').hidden = tiles;
    if (tiles) {
      renderTiles(st);
      return;
    }
    setMatchLine(st);
    const m = st.match || {};
    $('rule-deadlock').textContent = m.active ? `Deadlock: ${m.settings.deadlock}${m.settings.advanced ? ' · advanced' : ''}` : '';
    renderScores(st);
    renderPiles($('piles'), st.piles, false, st.unsure);
    $('pile-count').textContent = st.piles && st.piles.length ? String(st.piles.length) : '';
    renderFeed($('feed'), st.feed, 30);
    const banner = $('banner');
    if (m.over) {
      banner.hidden = false;
      banner.textContent = m.winner ? `🏆 ${m.winner} wins the match` : 'The match is over';
    } else if (st.phase === 'counting') {
      banner.hidden = false;
      banner.textContent = st.deadlock ? 'Deadlock: nobody can play. Counting cards…' : `Ligretto stop${st.stopped_by ? ` by ${st.stopped_by}` : ''}! Counting cards…`;
    } else {
      banner.hidden = true;
    }
  }

  function renderScores(st) {
    const body = $('scores');
    body.replaceChildren();
    const m = st.match || {};
    const players = (st.players || []).slice().sort((a, b) => b.total - a.total);
    if (players.length === 0) {
      body.append(el('tr', {}, el('td', { colspan: '4', class: 'empty', text: 'No match yet.' })));
      return;
    }
    const target = m.settings && !m.settings.rounds ? m.settings.target : 0;
    players.forEach((p, i) => {
      const live = p.live !== undefined && p.live !== null;
      const round = live ? p.live : p.last;
      const pct = target ? Math.max(0, Math.min(100, (100 * p.total) / target)) : 0;
      const bar = el('div', { class: 'bar-track' }, el('div', { class: 'bar-fill' }));
      bar.firstChild.style.width = `${pct}%`;
      const swatch = el('span', { class: 'swatch', title: `back: ${p.back}` });
      swatch.style.background = backColour(p.back);
      body.append(el('tr', { class: `${m.winner === p.name ? 'winner' : ''}${m.leader === p.name ? ' leader' : ''}` },
        el('td', { class: 'rank', text: String(i + 1) }),
        el('td', { class: 'who' }, el('div', { class: 'name' }, swatch, el('span', { text: p.name }), el('span', { class: 'back', text: p.back })), target ? bar : null),
        el('td', { class: `num ${live ? 'live' : 'last'}`, text: round === undefined || round === null ? '–' : (round > 0 ? `+${round}` : String(round)), title: live ? 'provisional: counting' : 'last round' }),
        el('td', { class: 'num total', text: String(p.total) })));
    });
  }

  window.addEventListener('pagehide', () => { if (viewer) viewer.close(); });
  // For tests and the curious: the current viewer (framesDecoded(); a
  // WHEPViewer's pc has the stats) and where it watches from.
  window.ligrettoViewer = () => viewer;
  window.ligrettoVia = () => mode;
  if (via === 'room') watchRoom();
  else watchWHEP();
})();
