"""Lesson 04's exercises."""

from benchbook.course.exercise import Exercise

NOTEBOOK = "04_url_shortener"

EXERCISES: list[Exercise] = []
