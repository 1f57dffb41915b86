/**
 * Spring Framework adapters for Tandem, without Spring Boot: {@link io.tandem.spring.TandemOutbox}
 * joins the Spring-managed transaction of a {@code DataSource}; {@link
 * io.tandem.spring.RelayLifecycle} and {@link io.tandem.spring.ConsumerRunnerLifecycle} start and
 * stop the relay and consumer runners with the application context; {@link
 * io.tandem.spring.TandemProperties} and {@link io.tandem.spring.BacklogHealth} are what the Boot
 * starters bind and report.
 */
package io.tandem.spring;
