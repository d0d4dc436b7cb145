"""The application: persistence, the command language, the channels, the texts."""
