// Package stream serves the annotated referee view to spectators over
// WebRTC, with the spectator page, the operator console, a JSON control API,
// /metrics and /healthz.
//
// The video is encoded once per frame (VP8, libvpx through mediadevices) and
// written to one shared track that every viewer's peer connection sends.
// What each viewer still costs is its own SRTP encryption and one datagram
// per packet: about 1 ms of CPU per second per viewer at 0.4-0.7 Mbit/s,
// 1.4 at 1.2 Mbit/s, measured on loopback (BenchmarkServerCPU), against
// about 0.2 s/s for encoding 720p25. To keep that low, the NACK history is
// one for all viewers (nack.go) and a frame's packets for every viewer
// leave in a few sendmmsg calls (sendbatch_linux.go). Viewers connect with WHEP
// (POST an SDP offer to /whep, DELETE the Location it returns to leave), so
// any WHEP player can watch too. The game state goes to viewers as JSON on a
// DataChannel the viewer opens, and as server-sent events on /events
// (events.go) to the /overlay page and anything else without WebRTC.
//
// A phone can be the camera: the /camera page publishes its rear camera by
// WHIP (POST /whip with the camera token, VP8 only, one camera at a time),
// and the server decodes the video and hands each picture to Config.Ingest
// (ingest.go, whip.go). stream/whipclient publishes pictures from Go the
// same way, for tests and tools; stream/whepclient watches the table from
// Go as a spectator does (WHEP, the VP8 track, the state DataChannel).
//
// The table can also go to a LiveKit room through a Relay (stream/livekit).
// The spectator page then watches from the room when opened as /?via=room,
// or by itself when this server turns it away as full: it fetches a viewer
// token from GET /api/room and joins with LiveKit's browser client, which
// is vendored in web/static/vendor/livekit-client and embedded like the
// other assets.
//
// The package knows the rest of the system through two small interfaces:
// a FrameSource delivers annotated pictures, and a Controller is the game
// that the console drives and whose State viewers see. RefereeGame is a
// Controller over the observed referee; TilesGame over the tile game's
// (rulebook 002), whose state says "game": "tiles" and carries "tiles".
//
// Routes:
//
//	GET  /                 spectator page (?via=room: from the LiveKit room)
//	GET  /console          operator console (its API calls need the token)
//	GET  /overlay          transparent scoreboard for OBS (a 1920x1080 browser
//	                       source): ?panels=scores,piles,calls&corner=tl|tr|bl|br&scale=0.5..3
//	GET  /events           the game state as server-sent events: the
//	                       DataChannel's messages, the current one first
//	POST /whep             WHEP: application/sdp offer -> 201 + answer + Location
//	PATCH|DELETE /whep/ID  WHEP session: trickle ICE / end
//	GET  /camera?token=T   camera page for a phone (HTTPS, or localhost)
//	POST /whip             WHIP: camera token, VP8 offer -> 201 + answer + Location
//	PATCH|DELETE /whip/ID  WHIP session: trickle ICE / end
//	GET  /api/camera/status  camera token or operator token: markers, prompt
//	POST /api/camera/token   operator: a new camera token (ends the camera)
//	GET  /api/room         a LiveKit viewer token (404 unless published to a room)
//	/api/...               control API, Bearer token
//	GET  /metrics          Prometheus text format: Server.Registry(), which
//	                       NewTableMetrics and others register on
//	GET  /healthz          200 when frames are flowing
package stream
