package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gocv.io/x/gocv"

	"ligretto/referee"
	"ligretto/referee/sim"
	"ligretto/render/scene"
)

// videoCodec is the FourCC the videos are written with: Motion JPEG, which
// Debian's OpenCV writes into .mkv and .avi alike.
const videoCodec = "MJPG"

// videoInfo is the JSON written beside a video (FILE.json): how its frames
// line up with timeline.jsonl.
type videoInfo struct {
	scene.Clip
	Video  string `json:"video"`
	Codec  string `json:"codec"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Seed   uint64 `json:"seed"`
	Note   string `json:"note"`
}

// renderVideo renders the match in events as a camera above the table
// sees it and writes it to path (.mkv or .avi, Motion JPEG) at fps, with
// path+".json" describing the frame timing. The calibration preamble comes
// first; after it, frame preamble_frames+j shows timeline time j*1000/fps.
// Progress goes to progress.
func renderVideo(events []sim.Event, path string, fps float64, seed uint64, cfg scene.Config, progress io.Writer) (videoInfo, error) {
	var players []referee.Player
	for _, e := range events {
		if e.Kind == sim.EvMatch {
			players = e.Players
			break
		}
	}
	if players == nil {
		return videoInfo{}, errors.New("render: the timeline has no match event")
	}
	if err := checkVideoPath(path); err != nil {
		return videoInfo{}, err
	}
	sc, err := scene.New(cfg, players, seed)
	if err != nil {
		return videoInfo{}, fmt.Errorf("render: %w", err)
	}
	for _, e := range events {
		if err := sc.Apply(e); err != nil {
			return videoInfo{}, fmt.Errorf("render: %w", err)
		}
	}
	clip, err := sc.Clip(fps)
	if err != nil {
		return videoInfo{}, fmt.Errorf("render: %w", err)
	}
	err = encodeVideo(path, fps, cfg.Width, cfg.Height, clip.Frames, progress, func(write func(k int, img gocv.Mat) error) error {
		return sc.RenderClip(clip, func(f scene.Frame) error { return write(f.Index, f.Image) })
	})
	if err != nil {
		return videoInfo{}, err
	}
	info := videoInfo{Clip: clip, Video: filepath.Base(path), Codec: videoCodec, Width: cfg.Width, Height: cfg.Height, Seed: seed,
		Note: "frame k shows timeline time floor((k - preamble_frames) * 1000 / fps) ms; frames before preamble_frames are the calibration preamble"}
	if err := writeVideoInfo(path, info); err != nil {
		return videoInfo{}, err
	}
	return info, nil
}

// checkVideoPath checks that path names a .mkv or .avi file in an
// existing directory.
func checkVideoPath(path string) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".mkv" && ext != ".avi" {
		return fmt.Errorf("render: %s: want a .mkv or .avi file", path)
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return fmt.Errorf("render: %s: no such directory", filepath.Dir(path))
	}
	return nil
}

// encodeVideo writes frames w x h at fps to path (Motion JPEG): render
// calls write with each of the frames in order, and progress shows how
// far it got.
func encodeVideo(path string, fps float64, w, h, frames int, progress io.Writer, render func(write func(k int, img gocv.Mat) error) error) error {
	vw, err := gocv.VideoWriterFile(path, videoCodec, fps, w, h, true)
	if err != nil {
		return fmt.Errorf("render: open %s: %w", path, err)
	}
	defer vw.Close()
	if !vw.IsOpened() { // VideoWriterFile does not say when it fails
		return fmt.Errorf("render: OpenCV cannot write %s with codec %s", path, videoCodec)
	}
	step := max(1, frames/100)
	err = render(func(k int, img gocv.Mat) error {
		if err := vw.Write(img); err != nil {
			return fmt.Errorf("render: write frame %d: %w", k, err)
		}
		if done := k + 1; done%step == 0 || done == frames {
			fmt.Fprintf(progress, "\rrender: %d/%d frames", done, frames)
		}
		return nil
	})
	fmt.Fprintln(progress)
	if err != nil {
		return err
	}
	if err := vw.Close(); err != nil {
		return fmt.Errorf("render: close %s: %w", path, err)
	}
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		return fmt.Errorf("render: %s was not written", path)
	}
	return nil
}

// writeVideoInfo writes info as path+".json".
func writeVideoInfo(path string, info any) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".json", append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}
