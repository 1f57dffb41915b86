package io.tandem.spring;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * Collects the {@link TandemHandler} methods of every bean as the context creates it (declare it
 * with a {@code static} {@code @Bean} method); {@link TandemConsumers} runs them.
 */
public final class TandemHandlerMethods implements BeanPostProcessor {
  private final List<HandlerMethod> handlers = Collections.synchronizedList(new ArrayList<>());

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    Class<?> target = AopUtils.getTargetClass(bean);
    if (target.getName().startsWith("org.springframework.")) {
      return bean;
    }
    Map<Method, TandemHandler> found =
        MethodIntrospector.selectMethods(
            target,
            (MethodIntrospector.MetadataLookup<TandemHandler>)
                m -> AnnotatedElementUtils.findMergedAnnotation(m, TandemHandler.class));
    found.forEach(
        (method, annotation) ->
            handlers.add(
                new HandlerMethod(
                    bean, AopUtils.selectInvocableMethod(method, bean.getClass()), annotation)));
    return bean;
  }

  /** The methods found so far. */
  public List<HandlerMethod> handlers() {
    synchronized (handlers) {
      return List.copyOf(handlers);
    }
  }
}
