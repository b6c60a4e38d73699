//go:build soak && !matprofile

package main

// matsCounted: without the matprofile tag gocv does not count Mats.
const matsCounted = false

func matCount() int { return -1 }
