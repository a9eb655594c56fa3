"""Real change histories: extraction (PyDriller + SZZ), labels, Kamei metrics and kernel replay."""
