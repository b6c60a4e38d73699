package stream

import (
	"io"
	"net/http"
)

// Table is the match loop at the table, as the operator console sees it:
// how its calibration goes, and the actions to calibrate again, to save
// the calibration and to load one. Config.Table is optional; without it
// these actions answer 501.
type Table interface {
	TableStatus() TableStatus
	// Recalibrate calibrates again from the camera, for these players in
	// the order they will show their backs (their seats round the table).
	Recalibrate(players []string) error
	// Calibration is the calibration file in use (JSON); ErrConflict
	// before there is one.
	Calibration() ([]byte, error)
	// LoadCalibration uses this calibration file from the next frame on;
	// ErrInvalid when it is not one this table can use.
	LoadCalibration(file []byte) error
}

// TableStatus is what GET /api/table returns.
type TableStatus struct {
	Source     string   `json:"source"`
	Calibrated bool     `json:"calibrated"`
	Stage      string   `json:"stage"`
	Markers    int      `json:"markers"`
	Players    []string `json:"players"`
	Enrolled   int      `json:"enrolled"`
	Prompt     string   `json:"prompt"`
	Frames     uint64   `json:"frames"`
	Width      int      `json:"width"`
	Height     int      `json:"height"`
}

// maxCalibrationBytes bounds an uploaded calibration file: it holds the
// empty table's picture.
const maxCalibrationBytes = 8 << 20

// tableRoutes adds the table's calibration actions to the operator API.
func (s *Server) tableRoutes(mux *http.ServeMux) {
	t := s.cfg.Table
	mux.HandleFunc("GET /api/table", func(w http.ResponseWriter, r *http.Request) {
		if t == nil {
			writeJSON(w, http.StatusNotImplemented, apiError{"this server has no table to calibrate"})
			return
		}
		writeJSON(w, http.StatusOK, t.TableStatus())
	})
	mux.HandleFunc("POST /api/table/calibrate", s.tableAction(func(r *http.Request) error {
		var req struct {
			Players []string `json:"players"`
		}
		if err := decodeJSON(r, &req, false); err != nil {
			return err
		}
		for _, p := range req.Players {
			if err := checkName("player name", p); err != nil {
				return err
			}
		}
		return t.Recalibrate(req.Players)
	}))
	mux.HandleFunc("GET /api/table/calibration.json", func(w http.ResponseWriter, r *http.Request) {
		if t == nil {
			writeJSON(w, http.StatusNotImplemented, apiError{"this server has no table to calibrate"})
			return
		}
		b, err := t.Calibration()
		if err != nil {
			writeJSON(w, statusFor(err), apiError{err.Error()})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Disposition", `attachment; filename="calibration.json"`)
		_, _ = w.Write(b)
	})
	mux.HandleFunc("PUT /api/table/calibration.json", s.tableAction(func(r *http.Request) error {
		if !hasMediaType(r.Header.Get("Content-Type"), "application/json") {
			return &requestError{http.StatusUnsupportedMediaType, "the body must be application/json"}
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, maxCalibrationBytes+1))
		if err != nil {
			return &requestError{http.StatusBadRequest, "could not read the request body"}
		}
		if len(b) > maxCalibrationBytes {
			return &requestError{http.StatusRequestEntityTooLarge, "a calibration file is at most 8 MiB"}
		}
		return t.LoadCalibration(b)
	}))
}

// tableAction runs a table action and answers with the table's status.
func (s *Server) tableAction(do func(*http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.Table == nil {
			writeJSON(w, http.StatusNotImplemented, apiError{"this server has no table to calibrate"})
			return
		}
		if err := do(r); err != nil {
			code := statusFor(err)
			if code == http.StatusInternalServerError {
				s.log.Error("table action failed", "path", r.URL.Path, "err", err)
			}
			writeJSON(w, code, apiError{err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, s.cfg.Table.TableStatus())
	}
}
