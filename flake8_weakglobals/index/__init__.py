"""The project index: what the other modules of the checked file's project define (module summaries, cached on
disk), and names resolved through them. It sits below the analysis and knows nothing of rules."""
