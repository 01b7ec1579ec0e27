"""Published benchmarks rerun on the lab: their cited figures (``published/*.yaml``, read
by ``published``), the lab's figure for each of them from a reproduction run's results
documents (``figures``) and the markdown comparison table (``tables``) that
``bench-runner reproduce-tables`` writes."""
