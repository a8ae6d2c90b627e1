// Package gradebook writes a class's grades in Canvas's gradebook import
// layout: the columns Student, ID, SIS User ID, SIS Login ID and Section,
// one column per assignment named "<Assignment> (<id>)" (the id Canvas gave
// it; without one Canvas makes a new assignment), then a "Points Possible"
// row, then a row per student. A blank score leaves Canvas's grade alone.
package gradebook

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// A Student is one row's person, as Canvas's roster export names them.
type Student struct {
	Name, ID, SISUserID, SISLoginID, Section string
}

// An Assignment is one points column.
type Assignment struct {
	Name   string
	ID     string // Canvas's assignment id; "" for a new assignment
	Points float64
}

// A Row is a student's scores, one per assignment: nil leaves it blank.
type Row struct {
	Student Student
	Scores  []*float64
}

// Canvas renders the gradebook import CSV.
func Canvas(assignments []Assignment, rows []Row) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section"}
	points := []string{"Points Possible", "", "", "", ""}
	for _, a := range assignments {
		name := a.Name
		if a.ID != "" {
			name += " (" + a.ID + ")"
		}
		head = append(head, name)
		points = append(points, number(a.Points))
	}
	w.Write(head)
	w.Write(points)
	for _, r := range rows {
		s := r.Student
		line := []string{s.Name, s.ID, s.SISUserID, s.SISLoginID, s.Section}
		for _, sc := range r.Scores {
			cell := ""
			if sc != nil {
				cell = number(*sc)
			}
			line = append(line, cell)
		}
		w.Write(line)
	}
	w.Flush()
	return b.Bytes()
}

// number is a score as Canvas reads it: no exponent, at most two decimals.
func number(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// A Roster is the class list Canvas exports (its first five columns).
type Roster []Student

// ReadRoster reads a roster CSV with a header line naming at least Student
// and one of ID, SIS User ID, SIS Login ID (Canvas's gradebook export has
// them all, and a "Points Possible" row, which is skipped).
func ReadRoster(r io.Reader) (Roster, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read the roster: %w", err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("the roster is empty")
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))] = i
	}
	if _, ok := col["Student"]; !ok {
		return nil, fmt.Errorf("the roster's header names no Student column (Canvas's: Student, ID, SIS User ID, SIS Login ID, Section)")
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out Roster
	for _, rec := range recs[1:] {
		s := Student{Name: get(rec, "Student"), ID: get(rec, "ID"), SISUserID: get(rec, "SIS User ID"),
			SISLoginID: get(rec, "SIS Login ID"), Section: get(rec, "Section")}
		if strings.HasPrefix(s.Name, "Points Possible") || s.Name == "" && s.ID == "" {
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// Find is the roster's student a class folder's name is: its SIS Login ID,
// SIS User ID, ID or name, in that order, in any letter case.
func (r Roster) Find(folder string) (Student, bool) {
	for _, key := range []func(Student) string{
		func(s Student) string { return s.SISLoginID }, func(s Student) string { return s.SISUserID },
		func(s Student) string { return s.ID }, func(s Student) string { return s.Name },
	} {
		for _, s := range r {
			if k := key(s); k != "" && strings.EqualFold(k, folder) {
				return s, true
			}
		}
	}
	return Student{}, false
}
