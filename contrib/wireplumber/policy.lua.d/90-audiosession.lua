-- WirePlumber 0.4 beside audiosessiond --no-linking.
--
-- WirePlumber keeps doing what it does well: devices, profiles, routes (headphone jacks),
-- default nodes and linking streams. audiosessiond applies the session policy: ducking,
-- interruptions, silent mode, record permission, quantum and rate.
--
-- WirePlumber's own role-based endpoint policy must stay off, or both would duck and cork the
-- same streams (WirePlumber by corking links and by an endpoint volume, without a ramp).
-- Install: copy this file to ~/.config/wireplumber/policy.lua.d/ (or /etc/wireplumber/...)
-- and restart WirePlumber.

-- No role endpoints: streams are linked straight to devices, not pinned to role endpoints.
default_policy.endpoints = {}
-- Nothing for WirePlumber to duck or cork by role.
default_policy.policy.roles = {}
