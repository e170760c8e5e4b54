package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// adultLines are a few records in the format of the UCI Adult files.
var adultLines = []string{
	"39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, 40, United-States, <=50K",
	"50, Self-emp-not-inc, 83311, Bachelors, 13, Married-civ-spouse, Exec-managerial, Husband, White, Male, 0, 0, 13, United-States, >50K",
	"38, Private, 215646, HS-grad, 9, Divorced, Handlers-cleaners, Not-in-family, White, Female, 0, 0, 40, United-States, <=50K",
	"53, Private, 234721, 11th, 7, Married-civ-spouse, Handlers-cleaners, Husband, Black, Male, 0, 0, 40, United-States, <=50K",
	"28, Private, 338409, Bachelors, 13, Married-civ-spouse, Prof-specialty, Wife, Black, Female, 0, 0, 40, Cuba, >50K",
	"37, Private, 284582, Masters, 14, Married-civ-spouse, Exec-managerial, Wife, White, Female, 0, 0, 40, United-States, >50K",
}

func TestReproduceFairnessSmall(t *testing.T) {
	data := t.TempDir()
	train := strings.Join(adultLines, "\n") + "\n"
	test := "|1x3 Cross validator\n" + strings.ReplaceAll(train, "50K\n", "50K.\n")
	if err := os.WriteFile(filepath.Join(data, "adult.data"), []byte(train), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "adult.test"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	var stdout, stderr bytes.Buffer
	args := []string{"--out", dir, "--adult", data, "--losses", "logistic,smooth01", "--cs", "inf,0.01", "--rounds", "200", "--batch", "2"}
	if err := reproduce("fairness", args, &stdout, &stderr); err != nil {
		t.Fatalf("reproduce fairness: %v\nstderr: %s", err, stderr.String())
	}
	checkFiles(t, dir, "fairness.csv", "table.md")
	csv, err := os.ReadFile(filepath.Join(dir, "fairness.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(string(csv), "\n"); lines != 1+4 {
		t.Errorf("fairness.csv has %d lines, want a header and 2 losses x 2 thresholds", lines)
	}
	checkTable(t, dir, stdout.String(), "| logistic | ∞ | ", "| smooth01 | 0.01 | ", "| smooth01 | ∞ | ", "L − L* = ")

	err = reproduce("fairness", []string{"--out", filepath.Join(t.TempDir(), "o"), "--adult", t.TempDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "adult.data") {
		t.Errorf("missing data: error %v, want one naming adult.data", err)
	}
	err = reproduce("fairness", []string{"--cs", "0,inf"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `--cs "0"`) {
		t.Errorf("--cs 0: error %v, want it named", err)
	}
}
