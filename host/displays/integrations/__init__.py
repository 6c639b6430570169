"""Integrations: Home Assistant, an AWTRIX 3 pixel clock and a WLED lamp, fed from the bridge's MQTT topics.

Everything here is an MQTT subscriber of the retained scoreboards and the moments stream (docs/mqtt.md), so it
runs on any machine that reaches the broker, and one started late is up to date at once (the scoreboards are
retained). Each integration is off until its option is given; `flickboard integrations` needs at least one.

    runner.py        the MQTT client (`IntegrationRunner`), `configure_parser`, `run_integrations`
    common.py        the base class, the shared view of the boards, reading scoreboards and moments
    homeassistant.py MQTT discovery: one Home Assistant device per board (one device-based config), its buttons
    awtrix.py        a custom app with the score, notifications on twenties and game ends, the clock's buttons
    commands.py      a button press as a manual entry through the bridge (input/result), counted and logged
    wled.py          a short effect on a twenty, then back to the lamp's look

The setup and every topic and payload: docs/integrations.md.
"""
