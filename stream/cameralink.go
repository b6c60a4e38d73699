package stream

import (
	"net/http"
	"net/url"

	"ligretto/stream/phonelink"
)

// cameraLink is GET /api/camera/link's answer: the address a phone opens
// to become the table's camera.
type cameraLink struct {
	URL  string `json:"url"`
	Live bool   `json:"live"`
}

// cameraURL is the camera page's full address with the current token, or
// "" when the server has no camera address or token.
func (s *Server) cameraURL() string {
	tok := s.CameraToken()
	if s.cfg.CameraURL == "" || tok == "" {
		return ""
	}
	return s.cfg.CameraURL + "/camera?token=" + url.QueryEscape(tok)
}

// serveCameraLink answers with the camera page's address (operator only).
func (s *Server) serveCameraLink(w http.ResponseWriter, r *http.Request) {
	u := s.cameraURL()
	if u == "" {
		writeJSON(w, http.StatusNotFound, apiError{"this server takes no phone camera (serve --source phone)"})
		return
	}
	writeJSON(w, http.StatusOK, cameraLink{URL: u, Live: s.ingestLive.Load()})
}

// serveCameraQR draws the camera page's address as a QR code, for the
// console: a phone opens it in one step, with nothing to type.
func (s *Server) serveCameraQR(w http.ResponseWriter, r *http.Request) {
	u := s.cameraURL()
	if u == "" {
		writeJSON(w, http.StatusNotFound, apiError{"this server takes no phone camera (serve --source phone)"})
		return
	}
	png, err := phonelink.PNGQR(u, 360)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, apiError{err.Error()})
		return
	}
	w.Header().Set("Content-Type", "image/png")
	_, _ = w.Write(png)
}
