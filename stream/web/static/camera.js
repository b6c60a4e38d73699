'use strict';
// The camera page: the phone's rear camera, previewed on screen and
// published to the referee by WHIP (RFC 9725) with the token from the
// address. It reconnects by itself with backoff, keeps the screen awake,
// and shows what the referee sees (table markers) and what to do next.
(() => {
  const $ = (id) => document.getElementById(id);
  const token = new URLSearchParams(location.search).get('token') || '';
  const video = $('preview');
  let stream = null;       // the camera
  let pc = null;           // the current peer connection
  let sessionURL = null;   // the current WHIP session
  let attempt = 0;         // failed attempts in a row, for the backoff
  let retryTimer = null;
  let disconnectTimer = null;
  let stopped = false;     // a refusal that retrying will not cure
  let wakeLock = null;
  let connState = 'new';
  let lastError = '';

  function setStatus(kind, text) {
    const s = $('status');
    s.className = `pill ${kind}`;
    s.textContent = text;
  }

  function setConn(text) { $('conn').textContent = `Connection: ${text}`; }

  function notice(title, text, steps, retry) {
    const box = $('notice');
    if (!title) { box.hidden = true; return; }
    box.hidden = false;
    $('notice-title').textContent = title;
    $('notice-text').textContent = text || '';
    const ol = $('notice-steps');
    ol.replaceChildren();
    for (const s of steps || []) {
      const li = document.createElement('li');
      li.textContent = s;
      ol.append(li);
    }
    $('retry').hidden = !retry;
  }

  const certSteps = [
    'Open the https:// address the operator gave you (the QR code). The camera only works on https://.',
    'When the browser warns that the connection is not private or the certificate is not trusted: that is expected, the referee uses its own self-signed certificate.',
    'Tap “Advanced” (or “Show details”), then “Proceed to …” (or “Visit this website”).',
  ];

  // ---- the camera ----

  async function openCamera() {
    const want = { audio: false, video: { facingMode: { ideal: 'environment' }, width: { ideal: 1280 }, height: { ideal: 720 }, frameRate: { ideal: 25, max: 30 } } };
    try {
      return await navigator.mediaDevices.getUserMedia(want);
    } catch (e) {
      if (e && e.name === 'OverconstrainedError') return navigator.mediaDevices.getUserMedia({ audio: false, video: true });
      throw e;
    }
  }

  function cameraError(e) {
    const name = (e && e.name) || '';
    if (name === 'NotAllowedError' || name === 'SecurityError') {
      notice('Camera access was denied', 'The referee needs this phone’s camera to see the table.', [
        'Tap the camera or lock icon next to the address and allow the camera for this site (on an iPhone: Settings › Safari › Camera › Allow).',
        'Then reload this page.',
      ], true);
      setStatus('down', 'No camera access');
    } else if (name === 'NotFoundError' || name === 'OverconstrainedError') {
      notice('No camera found', 'This device has no camera the browser can use.', [], true);
      setStatus('down', 'No camera');
    } else if (name === 'NotReadableError' || name === 'AbortError') {
      notice('The camera is busy', 'Another app is using the camera. Close it, then try again.', [], true);
      setStatus('down', 'Camera busy');
    } else {
      notice('The camera could not start', String((e && e.message) || e), [], true);
      setStatus('down', 'No camera');
    }
  }

  async function startCamera() {
    if (stream && stream.getVideoTracks().some((t) => t.readyState === 'live')) return true;
    try {
      stream = await openCamera();
    } catch (e) {
      cameraError(e);
      return false;
    }
    video.srcObject = stream;
    video.play().catch(() => {});
    const track = stream.getVideoTracks()[0];
    // The camera stops when another app takes it or the phone sleeps:
    // start again, and publish the new track.
    track.addEventListener('ended', () => {
      if (stopped) return;
      stream = null;
      setStatus('wait', 'Camera stopped');
      reconnect('the camera stopped', 500);
    });
    return true;
  }

  // ---- publishing ----

  function preferVP8(transceiver) {
    try {
      const caps = (window.RTCRtpReceiver && RTCRtpReceiver.getCapabilities && RTCRtpReceiver.getCapabilities('video')) ||
        (window.RTCRtpSender && RTCRtpSender.getCapabilities && RTCRtpSender.getCapabilities('video'));
      if (!caps || !transceiver.setCodecPreferences) return;
      const vp8 = caps.codecs.filter((c) => /^video\/vp8$/i.test(c.mimeType));
      if (!vp8.length) return;
      const rest = caps.codecs.filter((c) => !/^video\/vp8$/i.test(c.mimeType));
      transceiver.setCodecPreferences([...vp8, ...rest]);
    } catch (e) { /* the server's answer picks VP8 anyway */ }
  }

  function waitGathering(p, ms) {
    if (p.iceGatheringState === 'complete') return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      p.addEventListener('icegatheringstatechange', () => {
        if (p.iceGatheringState === 'complete') { clearTimeout(t); resolve(); }
      });
    });
  }

  function endSession() {
    if (disconnectTimer) { clearTimeout(disconnectTimer); disconnectTimer = null; }
    if (pc) { pc.onconnectionstatechange = null; pc.close(); pc = null; }
    if (sessionURL) {
      // Free the server's camera slot now rather than after its timeout.
      fetch(sessionURL, { method: 'DELETE', keepalive: true, headers: { Authorization: `Bearer ${token}` } }).catch(() => {});
      sessionURL = null;
    }
  }

  async function publish() {
    retryTimer = null;
    if (stopped) return;
    if (!(await startCamera())) return;
    endSession();
    setStatus('wait', 'Connecting…');
    setConn('connecting');
    const p = new RTCPeerConnection({ bundlePolicy: 'max-bundle' });
    pc = p;
    const track = stream.getVideoTracks()[0];
    if ('contentHint' in track) track.contentHint = 'detail'; // cards need sharp pictures more than smooth motion
    const tr = p.addTransceiver(track, { direction: 'sendonly', streams: [stream] });
    preferVP8(tr);
    p.onconnectionstatechange = () => onConnection(p);
    let res;
    try {
      await p.setLocalDescription(await p.createOffer());
      // The server's host candidates come in its answer; ours go in the
      // offer, so no trickling is needed on a LAN.
      await waitGathering(p, 2000);
      res = await fetch('/whip', {
        method: 'POST',
        headers: { 'Content-Type': 'application/sdp', Authorization: `Bearer ${token}` },
        body: p.localDescription.sdp,
        cache: 'no-store',
      });
    } catch (e) {
      if (pc !== p) return;
      lastError = 'the referee cannot be reached';
      reconnect(lastError);
      return;
    }
    // Not trimmed: an SDP's last line needs its CRLF.
    const text = await res.text().catch(() => '');
    if (pc !== p) return;
    if (res.status !== 201) { refused(res.status, text.trim()); return; }
    sessionURL = new URL(res.headers.get('Location'), res.url).toString();
    try {
      await p.setRemoteDescription({ type: 'answer', sdp: text });
    } catch (e) {
      reconnect(`the referee’s answer was not understood (${e.message})`);
      return;
    }
    // The server ending the session (a new token, a restart) closes DTLS
    // at once, but the connection state waits for ICE to time out.
    const dtls = tr.sender.transport;
    if (dtls) {
      dtls.addEventListener('statechange', () => {
        if (pc === p && (dtls.state === 'closed' || dtls.state === 'failed')) reconnect('the referee ended the session', 500);
      });
    }
    try {
      // Resolution matters more than frame rate for reading cards.
      const sender = tr.sender;
      const params = sender.getParameters();
      params.degradationPreference = 'maintain-resolution';
      if (params.encodings && params.encodings[0]) params.encodings[0].maxBitrate = 2500000;
      await sender.setParameters(params);
    } catch (e) { /* optional */ }
  }

  function refused(status, text) {
    lastError = `${status}: ${text}`;
    if (status === 401 || status === 403) {
      stopped = true;
      endSession();
      setStatus('down', 'Link out of date');
      notice('This camera link does not work any more', text, [
        'The operator made a new camera link (or none yet). Ask for it and open it (scan the QR code again).',
      ], true);
    } else if (status === 415 || status === 422) {
      stopped = true;
      endSession();
      setStatus('down', 'Browser not supported');
      notice('This browser cannot send the video the referee needs', text, ['Try Chrome, Firefox or Safari, up to date.'], true);
    } else if (status === 409) {
      setStatus('wait', 'Another camera is on');
      notice('Another camera is connected to this table', 'This phone will take over as soon as the other camera stops. Retrying…', [], false);
      reconnect('another camera is connected');
    } else {
      reconnect(`the referee refused (${status}: ${text})`);
    }
  }

  function onConnection(p) {
    if (pc !== p) return;
    connState = p.connectionState;
    setConn(connState);
    if (disconnectTimer && connState !== 'disconnected') { clearTimeout(disconnectTimer); disconnectTimer = null; }
    switch (connState) {
      case 'connected':
        attempt = 0;
        lastError = '';
        setStatus('live', 'Live');
        notice(null);
        break;
      case 'disconnected':
        setStatus('wait', 'Connection unstable…');
        // Often it comes back by itself; if not, start over.
        disconnectTimer = setTimeout(() => { if (pc === p) reconnect('the connection was lost'); }, 3000);
        break;
      case 'failed':
      case 'closed':
        reconnect('the connection was lost');
        break;
    }
  }

  // reconnect starts over after a growing pause: 1, 2, 4 … 15 s.
  function reconnect(why, delay) {
    if (stopped) return;
    endSession();
    if (retryTimer) clearTimeout(retryTimer);
    const d = delay !== undefined ? delay : Math.min(15000, 1000 * 2 ** Math.min(attempt, 4));
    attempt++;
    setStatus('down', 'Reconnecting…');
    setConn(`${why}; trying again in ${Math.round(d / 1000)} s`);
    retryTimer = setTimeout(publish, d);
  }

  $('retry').addEventListener('click', () => {
    stopped = false;
    attempt = 0;
    notice(null);
    if (retryTimer) clearTimeout(retryTimer);
    publish();
  });

  // ---- what the referee sees ----

  async function pollStatus() {
    if (stopped && !token) return;
    try {
      const res = await fetch('/api/camera/status', { headers: { Authorization: `Bearer ${token}` }, cache: 'no-store' });
      if (res.status === 401) return;
      if (!res.ok) return;
      const st = await res.json();
      const n = Math.max(0, Math.min(4, st.markers | 0));
      $('markers').textContent = `Markers: ${n} of 4`;
      [...$('marker-dots').children].forEach((d, i) => d.classList.toggle('on', i < n));
      const c = $('calibrated');
      c.textContent = st.calibrated ? 'Calibrated' : 'Not calibrated';
      c.className = `pill small ${st.calibrated ? 'live' : 'wait'}`;
      if (st.prompt) $('prompt').textContent = st.prompt;
    } catch (e) { /* the server is restarting: the publisher reconnects */ }
  }

  // ---- the screen stays on ----

  async function keepAwake() {
    if (!('wakeLock' in navigator) || document.visibilityState !== 'visible') return;
    if (wakeLock && !wakeLock.released) return;
    try {
      wakeLock = await navigator.wakeLock.request('screen');
    } catch (e) { /* not allowed now (battery saver); asked again when visible */ }
  }

  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') return;
    keepAwake();
    // Back from the background: the camera or the connection may be gone.
    if (!stopped && (!stream || !stream.getVideoTracks().some((t) => t.readyState === 'live'))) reconnect('the camera was paused', 0);
  });

  // For tests and the curious: the connection and what was sent.
  window.ligrettoCamera = {
    state: () => ({ connection: connState, session: sessionURL, error: lastError, stopped }),
    async framesSent() {
      if (!pc) return 0;
      let n = 0;
      (await pc.getStats()).forEach((s) => { if (s.type === 'outbound-rtp' && s.kind === 'video') n = s.framesEncoded || 0; });
      return n;
    },
  };

  // ---- start ----

  if (!token) {
    stopped = true;
    setStatus('down', 'No token');
    notice('This camera link is incomplete', 'It has no camera token.', ['Ask the operator for the camera link (or QR code) and open it.'], false);
    return;
  }
  if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    stopped = true;
    setStatus('down', 'Needs https://');
    notice('The camera needs the secure (https://) address', `This page was opened at ${location.protocol}//${location.host}, where browsers do not give web pages the camera.`, certSteps, false);
    return;
  }
  keepAwake();
  pollStatus();
  setInterval(pollStatus, 1000);
  publish();
})();
