// Package vision turns camera frames into referee observations: it finds
// cards (with package find), warps each to the classifier's crop, and
// tracks piles over frames. It owns OpenCV (through gocv); every Mat it
// makes it closes.
package vision
