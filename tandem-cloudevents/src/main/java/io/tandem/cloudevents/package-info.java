/**
 * The mapping between Tandem's {@link io.tandem.core.Event} and a CloudEvents 1.0 event, shared by
 * every transport: {@link io.tandem.cloudevents.CloudEventMapping} turns an event into a CloudEvent
 * (or into its attributes as text, in a fixed order), {@link
 * io.tandem.cloudevents.CloudEventDecoder} turns a CloudEvent (or the attribute values a transport
 * read) back into an event, and {@link io.tandem.cloudevents.InvalidCloudEventException} names the
 * attribute that was missing or invalid. How the attributes travel (header prefixes, escaping,
 * message properties) stays in each transport module.
 */
package io.tandem.cloudevents;
