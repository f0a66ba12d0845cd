// Module PushService: under construction.
