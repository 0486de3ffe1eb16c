"""The card wallet's rules: operations, settling lost answers, evidence, the words shown."""
