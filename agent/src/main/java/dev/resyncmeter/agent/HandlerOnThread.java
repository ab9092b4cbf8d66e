package dev.resyncmeter.agent;

/**
 * The informer listener a thread runs, as each library's unit keeps it in the thread's context: the
 * label of its handler, for API requests that the handler's own calls send.
 */
public interface HandlerOnThread {

  String handlerLabel();
}
