"""Red-teaming: how a model's fairness and toxicity hold under adversarial system prompts and template probes."""
