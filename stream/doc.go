// Package stream serves the annotated referee view to spectators over
// WebRTC, with the spectator page, the operator console, a JSON control API,
// /metrics and /healthz.
//
// The video is encoded once per frame (VP8, libvpx through mediadevices) and
// written to one shared track that every viewer's peer connection sends, so
// a hundred viewers cost little more than one. Viewers connect with WHEP
// (POST an SDP offer to /whep, DELETE the Location it returns to leave), so
// any WHEP player can watch too. The game state goes to viewers as JSON on a
// DataChannel the viewer opens.
//
// The package knows the rest of the system through two small interfaces:
// a FrameSource delivers annotated pictures, and a Controller is the game
// that the console drives and whose State viewers see. RefereeGame is a
// Controller over the observed referee.
//
// Routes:
//
//	GET  /                 spectator page
//	GET  /console          operator console (its API calls need the token)
//	POST /whep             WHEP: application/sdp offer -> 201 + answer + Location
//	PATCH|DELETE /whep/ID  WHEP session: trickle ICE / end
//	/api/...               control API, Bearer token
//	GET  /metrics          Prometheus text format
//	GET  /healthz          200 when frames are flowing
package stream
