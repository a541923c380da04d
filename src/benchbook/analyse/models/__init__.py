"""Models that explain the numbers: the Universal Scalability Law for throughput over
concurrency (usl, usl_checks), queueing theory for latency over offered load (queueing),
sentences from their numbers (wording) and charts of both (model_plots).

The models read tidy rows of stored runs only; nothing here measures.
"""
