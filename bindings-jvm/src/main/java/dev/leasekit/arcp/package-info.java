/**
 * Drop-in classes for runtimes built on the ARCP Java SDK ({@code dev.arcp}): {@link
 * dev.leasekit.arcp.ArcpLeaseGuard}, {@link dev.leasekit.arcp.ArcpBudgetCounters} and {@link
 * dev.leasekit.arcp.ArcpLeaseSubset} have the SDK's method names and argument order, answer with
 * leasekit's core, and throw the SDK's exceptions ({@code dev.arcp.core.error}) when the SDK is on
 * the class path, found by reflection ({@link dev.leasekit.arcp.ArcpErrors}); leasekit's own
 * exceptions otherwise. This package does not depend on the SDK at compile time.
 */
package dev.leasekit.arcp;
