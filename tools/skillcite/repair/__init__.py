"""Writing back: ``fix`` (anchors), ``lock`` (content locks), front-matter stamps."""
