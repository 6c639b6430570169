"""What people look at: the terminal views, the web page (TV and phone), and the integrations (Home Assistant,
AWTRIX, WLED). Displays read the bridge's documents from MQTT; they import only the shared modules (config, mqtt,
lifecycle), the core's documents and the rules registry."""
