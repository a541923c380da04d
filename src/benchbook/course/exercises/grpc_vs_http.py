"""Lesson 05's exercises."""

from benchbook.course.exercise import Exercise

NOTEBOOK = "05_grpc_vs_http"

EXERCISES: list[Exercise] = []
