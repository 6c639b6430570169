"""The tests' Mosquitto is the product's private broker (host/sim/broker.py); this module keeps the tests' imports
(`from broker import Broker, mosquitto`) working."""

from __future__ import annotations

from host.sim.broker import Broker, BrokerError, find_mosquitto, free_port, mosquitto, start_mosquitto

__all__ = ["Broker", "BrokerError", "find_mosquitto", "free_port", "mosquitto", "start_mosquitto"]
